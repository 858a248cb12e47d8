import ipaddress

from drf_spectacular.utils import extend_schema
from rest_framework import serializers, status
from rest_framework.decorators import action
from rest_framework.response import Response

from tests.realistic.common import BulkModelViewSet, BulkRouter
from tests.realistic.ipam.models import ASN, VLAN, VRF, IPAddress, Prefix, VLANGroup


class VRFSerializer(serializers.ModelSerializer):
    class Meta:
        model = VRF
        fields = "__all__"


class ASNSerializer(serializers.ModelSerializer):
    class Meta:
        model = ASN
        fields = "__all__"


class VLANGroupSerializer(serializers.ModelSerializer):
    class Meta:
        model = VLANGroup
        fields = "__all__"


class VLANSerializer(serializers.ModelSerializer):
    class Meta:
        model = VLAN
        fields = "__all__"


class PrefixSerializer(serializers.ModelSerializer):
    class Meta:
        model = Prefix
        fields = "__all__"


class IPAddressSerializer(serializers.ModelSerializer):
    class Meta:
        model = IPAddress
        fields = "__all__"


class AvailableIPSerializer(serializers.Serializer):
    address = serializers.CharField(read_only=True)
    dns_name = serializers.CharField(required=False, write_only=True)
    description = serializers.CharField(required=False, write_only=True)


class VRFViewSet(BulkModelViewSet):
    queryset = VRF.objects.all()
    serializer_class = VRFSerializer
    filterset_fields = ["name", "rd"]
    search_fields = ["name", "rd", "description"]
    ordering_fields = ["name"]


class ASNViewSet(BulkModelViewSet):
    queryset = ASN.objects.all()
    serializer_class = ASNSerializer
    filterset_fields = ["asn", "rir"]
    search_fields = ["description"]
    ordering_fields = ["asn"]


class VLANGroupViewSet(BulkModelViewSet):
    queryset = VLANGroup.objects.all()
    serializer_class = VLANGroupSerializer
    filterset_fields = ["name", "slug"]
    search_fields = ["name"]
    ordering_fields = ["name"]


class VLANViewSet(BulkModelViewSet):
    queryset = VLAN.objects.select_related("group")
    serializer_class = VLANSerializer
    filterset_fields = ["vid", "group", "status"]
    search_fields = ["name", "description"]
    ordering_fields = ["vid", "name"]


class PrefixViewSet(BulkModelViewSet):
    queryset = Prefix.objects.select_related("vrf", "vlan")
    serializer_class = PrefixSerializer
    filterset_fields = ["vrf", "vlan", "status", "is_pool"]
    search_fields = ["prefix", "description"]
    ordering_fields = ["prefix"]

    def _free_addresses(self, prefix):
        network = ipaddress.ip_network(prefix.prefix, strict=False)
        used = set(IPAddress.objects.filter(vrf=prefix.vrf).values_list("address", flat=True))
        for host in network.hosts():
            address = f"{host}/{network.prefixlen}"
            if address not in used:
                yield address

    @extend_schema(responses=AvailableIPSerializer(many=True))
    @action(detail=True, methods=["get"], url_path="available-ips", pagination_class=None)
    def available_ips(self, request, pk=None):
        free = []
        for address in self._free_addresses(self.get_object()):
            free.append({"address": address})
            if len(free) == 50:
                break
        return Response(free)

    @extend_schema(request=AvailableIPSerializer, responses=IPAddressSerializer)
    @available_ips.mapping.post
    def allocate_ip(self, request, pk=None):
        prefix = self.get_object()
        address = next(self._free_addresses(prefix), None)
        if address is None:
            return Response({"detail": "The prefix is full."}, status=status.HTTP_409_CONFLICT)
        created = IPAddress.objects.create(
            address=address,
            vrf=prefix.vrf,
            dns_name=request.data.get("dns_name", ""),
            description=request.data.get("description", ""),
        )
        return Response(IPAddressSerializer(created).data, status=status.HTTP_201_CREATED)


class IPAddressViewSet(BulkModelViewSet):
    queryset = IPAddress.objects.select_related("vrf")
    serializer_class = IPAddressSerializer
    filterset_fields = ["vrf", "status", "dns_name"]
    search_fields = ["address", "dns_name", "description"]
    ordering_fields = ["address"]


router = BulkRouter()
router.register("vrfs", VRFViewSet)
router.register("asns", ASNViewSet)
router.register("vlan-groups", VLANGroupViewSet)
router.register("vlans", VLANViewSet)
router.register("prefixes", PrefixViewSet)
router.register("ip-addresses", IPAddressViewSet)
