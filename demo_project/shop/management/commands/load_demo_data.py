from django.core.management.base import BaseCommand

from demo_project.shop.demo_data import DEMO_PASSWORDS, DEMO_TOKENS, load_demo_data


class Command(BaseCommand):
    help = (
        "Create or reset the demo catalog, the users alice (staff) and bob (customer) with "
        "fixed API tokens, and two orders of bob. Safe to run repeatedly."
    )

    def handle(self, *args, **options):
        counts = load_demo_data()
        self.stdout.write(self.style.SUCCESS("Demo data loaded."))
        self.stdout.write(", ".join(f"{n} {kind}" for kind, n in counts.items()))
        for username, role in (("alice", "staff"), ("bob", "customer")):
            self.stdout.write(
                f"  {username} ({role}): password {DEMO_PASSWORDS[username]!r}, "
                f"header 'Authorization: Token {DEMO_TOKENS[username]}'"
            )
