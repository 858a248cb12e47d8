from rest_framework import serializers
from rest_framework.decorators import action
from rest_framework.response import Response

from tests.realistic.common import BulkModelViewSet, BulkRouter, ModelViewSet
from tests.realistic.crm.models import Activity, Company, Contact, Customer, Lead


class CompanySerializer(serializers.ModelSerializer):
    class Meta:
        model = Company
        fields = "__all__"


class CustomerSerializer(serializers.ModelSerializer):
    class Meta:
        model = Customer
        fields = "__all__"


class ContactSerializer(serializers.ModelSerializer):
    class Meta:
        model = Contact
        fields = "__all__"


class LeadSerializer(serializers.ModelSerializer):
    class Meta:
        model = Lead
        fields = "__all__"
        read_only_fields = ["status"]


class ActivitySerializer(serializers.ModelSerializer):
    class Meta:
        model = Activity
        fields = "__all__"


class CompanyViewSet(ModelViewSet):
    queryset = Company.objects.all()
    serializer_class = CompanySerializer
    filterset_fields = ["industry"]
    search_fields = ["name", "website"]
    ordering_fields = ["name", "employees"]


class CustomerViewSet(ModelViewSet):
    queryset = Customer.objects.select_related("company")
    serializer_class = CustomerSerializer
    filterset_fields = ["tier", "company"]
    search_fields = ["name", "email", "phone"]
    ordering_fields = ["name", "created_at"]


class ContactViewSet(BulkModelViewSet):
    queryset = Contact.objects.all()
    serializer_class = ContactSerializer
    filterset_fields = ["company", "job_title"]
    search_fields = ["first_name", "last_name", "email"]
    ordering_fields = ["last_name", "first_name"]


class LeadViewSet(ModelViewSet):
    queryset = Lead.objects.all()
    serializer_class = LeadSerializer
    filterset_fields = ["status", "source"]
    search_fields = ["name", "email", "company_name"]
    ordering_fields = ["created_at", "name"]

    @action(detail=True, methods=["post"], serializer_class=CustomerSerializer)
    def convert(self, request, pk=None):
        lead = self.get_object()
        customer = Customer.objects.create(name=lead.name, email=lead.email)
        lead.status = Lead.Status.CONVERTED
        lead.save(update_fields=["status"])
        return Response(CustomerSerializer(customer).data)


class ActivityViewSet(ModelViewSet):
    queryset = Activity.objects.all()
    serializer_class = ActivitySerializer
    filterset_fields = ["kind", "customer", "done"]
    search_fields = ["subject"]
    ordering_fields = ["due_at"]


router = BulkRouter()
router.register("companies", CompanyViewSet)
router.register("customers", CustomerViewSet)
router.register("contacts", ContactViewSet)
router.register("leads", LeadViewSet)
router.register("activities", ActivityViewSet)
