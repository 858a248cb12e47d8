from rest_framework import serializers
from rest_framework.decorators import action
from rest_framework.response import Response

from tests.realistic.common import BulkModelViewSet, BulkRouter
from tests.realistic.virtualization.models import Cluster, VirtualMachine, VMInterface


class ClusterSerializer(serializers.ModelSerializer):
    class Meta:
        model = Cluster
        fields = "__all__"


class VirtualMachineSerializer(serializers.ModelSerializer):
    class Meta:
        model = VirtualMachine
        fields = "__all__"


class VMInterfaceSerializer(serializers.ModelSerializer):
    class Meta:
        model = VMInterface
        fields = "__all__"


class ClusterViewSet(BulkModelViewSet):
    queryset = Cluster.objects.all()
    serializer_class = ClusterSerializer
    filterset_fields = ["type", "site"]
    search_fields = ["name"]
    ordering_fields = ["name"]


class VirtualMachineViewSet(BulkModelViewSet):
    queryset = VirtualMachine.objects.select_related("cluster", "primary_ip")
    serializer_class = VirtualMachineSerializer
    filterset_fields = ["cluster", "status", "vcpus"]
    search_fields = ["name"]
    ordering_fields = ["name", "vcpus", "memory_mb"]

    def _set_status(self, status):
        machine = self.get_object()
        machine.status = status
        machine.save(update_fields=["status"])
        return Response(self.get_serializer(machine).data)

    @action(detail=True, methods=["post"])
    def start(self, request, pk=None):
        return self._set_status(VirtualMachine.Status.RUNNING)

    @action(detail=True, methods=["post"])
    def stop(self, request, pk=None):
        return self._set_status(VirtualMachine.Status.STOPPED)

    @action(detail=True, methods=["post"])
    def reboot(self, request, pk=None):
        return self._set_status(VirtualMachine.Status.RUNNING)


class VMInterfaceViewSet(BulkModelViewSet):
    queryset = VMInterface.objects.select_related("virtual_machine")
    serializer_class = VMInterfaceSerializer
    filterset_fields = ["virtual_machine", "enabled"]
    search_fields = ["name", "mac_address"]
    ordering_fields = ["name"]


router = BulkRouter()
router.register("clusters", ClusterViewSet)
router.register("virtual-machines", VirtualMachineViewSet)
router.register("interfaces", VMInterfaceViewSet)
