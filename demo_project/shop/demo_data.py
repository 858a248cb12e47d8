"""Demo users, tokens and catalog, loaded by ``manage.py load_demo_data``.

Loading is idempotent: every object is looked up by a natural key (slug,
username, order note) and reset to the values below, so running it again
restores the demo state without duplicating anything or touching other data.
"""

from decimal import Decimal

from django.contrib.auth import get_user_model
from django.db import transaction
from rest_framework.authtoken.models import Token

from .models import Category, Order, OrderItem, Product, Tag

# Fixed DRF token keys, so that docs, scripts and tests can use them without a login step.
# Token.key is a CharField(max_length=40); both keys are exactly 40 characters.
DEMO_TOKENS = {
    "alice": "staff0000000000000000000000000000000demo",
    "bob": "customer0000000000000000000000000000demo",
}

DEMO_PASSWORDS = {
    "alice": "alice-demo-pass",
    "bob": "bob-demo-pass",
}

# Data tables are laid out by hand, one record per line or two, which reads better than
# the formatter's one-value-per-line layout.
# fmt: off

# (slug, name, children): three levels, root → subcategory → leaf.
CATEGORIES = [
    ("home", "Home", [
        ("lighting", "Lighting", [("desk-lamps", "Desk lamps"), ("floor-lamps", "Floor lamps")]),
        ("kitchen", "Kitchen", [("cookware", "Cookware"), ("coffee-and-tea", "Coffee & tea")]),
    ]),
    ("electronics", "Electronics", [
        ("audio", "Audio", [("headphones", "Headphones"), ("speakers", "Speakers")]),
        ("computer-accessories", "Computer accessories", [
            ("keyboards", "Keyboards"), ("mice", "Mice"),
        ]),
    ]),
    ("outdoor", "Outdoor", [
        ("camping", "Camping", [("tents", "Tents"), ("sleeping-bags", "Sleeping bags")]),
        ("cycling", "Cycling", [("bike-lights", "Bike lights"), ("helmets", "Helmets")]),
    ]),
]

TAGS = [
    ("bestseller", "Bestseller"),
    ("eco-friendly", "Eco-friendly"),
    ("gift-idea", "Gift idea"),
    ("new", "New"),
    ("sale", "Sale"),
    ("wireless", "Wireless"),
]

ACTIVE = Product.Status.ACTIVE
DRAFT = Product.Status.DRAFT
DISCONTINUED = Product.Status.DISCONTINUED

# category slug: [(slug, name, price, stock, weight in grams or None, tag slugs, status,
#                  description)]
PRODUCTS = {
    "desk-lamps": [
        ("arc-led-desk-lamp", "Arc LED desk lamp", "49.90", 25, 1200, ["bestseller"], ACTIVE,
         "Adjustable LED desk lamp with three colour temperatures and a stepless dimmer."),
        ("clamp-on-architect-lamp", "Clamp-on architect lamp", "39.00", 12, 1650, [], ACTIVE,
         "Spring-balanced swing-arm lamp that clamps to desks up to 5 cm thick."),
        ("walnut-touch-lamp", "Walnut touch lamp", "64.50", 0, 900, ["gift-idea", "eco-friendly"],
         ACTIVE, "Solid walnut bedside lamp, switched and dimmed by touching the base."),
    ],
    "floor-lamps": [
        ("tripod-floor-lamp", "Tripod floor lamp", "129.00", 6, 5400, ["new"], ACTIVE,
         "Oak tripod with a linen shade, 160 cm tall."),
        ("paper-lantern-floor-lamp", "Paper lantern floor lamp", "89.00", 9, None, ["eco-friendly"],
         ACTIVE, "Rice-paper lantern on a bamboo stand; soft, diffuse light."),
        ("brass-reading-lamp", "Brass reading lamp", "149.00", 0, 6200, [], DISCONTINUED,
         "Brushed brass floor lamp with an adjustable reading arm."),
    ],
    "cookware": [
        ("cast-iron-skillet-26", "Cast iron skillet 26 cm", "44.90", 30, 2700, ["bestseller"],
         ACTIVE, "Pre-seasoned cast iron pan for stove, oven and campfire."),
        ("stainless-saucepan-set", "Stainless steel saucepan set", "119.00", 8, 4800, ["gift-idea"],
         ACTIVE, "Three saucepans (16, 18, 20 cm) with glass lids, induction-ready."),
        ("ceramic-frying-pan", "Ceramic non-stick frying pan", "34.90", 40, 1100, ["sale"], ACTIVE,
         "28 cm frying pan with a PFAS-free ceramic coating."),
    ],
    "coffee-and-tea": [
        ("pour-over-dripper", "Pour-over coffee dripper", "24.90", 55, 350, ["gift-idea"], ACTIVE,
         "Porcelain cone dripper for one to two cups; takes size 02 filters."),
        ("burr-coffee-grinder", "Burr coffee grinder", "89.00", 14, 1900, ["bestseller"], ACTIVE,
         "Electric conical burr grinder with 40 grind settings, espresso to French press."),
        ("glass-teapot", "Glass teapot 1 l", "29.90", 22, None, [], ACTIVE,
         "Borosilicate glass teapot with a removable stainless steel infuser."),
        ("gooseneck-kettle", "Electric gooseneck kettle", "69.00", 0, 1000, ["new"], DRAFT,
         "Temperature-controlled kettle for pour-over coffee and green tea."),
    ],
    "headphones": [
        ("over-ear-wireless-headphones", "Over-ear wireless headphones", "199.00", 18, 290,
         ["wireless", "bestseller"], ACTIVE,
         "Noise-cancelling Bluetooth headphones with 30 hours of battery."),
        ("sport-earbuds", "Sport earbuds", "79.00", 35, 60, ["wireless", "sale"], ACTIVE,
         "Sweat-proof true wireless earbuds with ear hooks."),
        ("studio-monitor-headphones", "Studio monitor headphones", "149.00", 7, 310, [], ACTIVE,
         "Closed-back wired headphones with a flat response for mixing."),
    ],
    "speakers": [
        ("portable-bluetooth-speaker", "Portable Bluetooth speaker", "69.00", 28, 540,
         ["wireless", "gift-idea"], ACTIVE, "Waterproof speaker with 12 hours of playback."),
        ("bookshelf-speakers", "Bookshelf speakers (pair)", "249.00", 4, 8200, [], ACTIVE,
         "Passive two-way speakers with 13 cm woofers."),
        ("smart-speaker-mini", "Smart speaker mini", "49.00", 0, None, ["wireless"], DISCONTINUED,
         "Compact voice-controlled speaker."),
    ],
    "keyboards": [
        ("mechanical-keyboard-tkl", "Mechanical keyboard TKL", "119.00", 16, 880, ["bestseller"],
         ACTIVE, "Tenkeyless keyboard with hot-swappable tactile switches and PBT keycaps."),
        ("low-profile-wireless-keyboard", "Low-profile wireless keyboard", "89.00", 21, 510,
         ["wireless"], ACTIVE, "Slim keyboard that pairs with up to three devices."),
        ("split-ergonomic-keyboard", "Split ergonomic keyboard", "229.00", 3, 1050, ["new"], ACTIVE,
         "Two-piece keyboard with tenting feet, for a natural wrist position."),
    ],
    "mice": [
        ("vertical-mouse", "Ergonomic vertical mouse", "49.00", 33, 130, ["wireless"], ACTIVE,
         "Vertical grip mouse that reduces forearm strain."),
        ("gaming-mouse", "Gaming mouse", "59.90", 19, 95, ["sale"], ACTIVE,
         "Lightweight wired mouse with a 26,000 DPI sensor."),
    ],
    "tents": [
        ("two-person-dome-tent", "Two-person dome tent", "179.00", 9, 2300, [], ACTIVE,
         "Freestanding three-season tent with two doors and vestibules."),
        ("ultralight-trekking-tent", "Ultralight trekking tent", "349.00", 5, 1150, ["new"], ACTIVE,
         "Single-wall tent pitched with trekking poles."),
    ],
    "sleeping-bags": [
        ("down-sleeping-bag", "Down sleeping bag -5 °C", "229.00", 11, 1100, ["eco-friendly"],
         ACTIVE, "Mummy bag filled with responsibly sourced down, comfort down to -5 °C."),
        ("summer-sleeping-bag", "Summer sleeping bag", "59.00", 27, 850, ["sale"], ACTIVE,
         "Rectangular synthetic bag for nights above 10 °C; unzips into a blanket."),
    ],
    "bike-lights": [
        ("usb-bike-light-set", "USB rechargeable bike light set", "34.90", 45, 180,
         ["bestseller", "gift-idea"], ACTIVE,
         "Front and rear LED lights, road-legal, charged over USB-C."),
        ("dynamo-front-light", "Dynamo front light", "54.00", 0, None, [], DRAFT,
         "Hub-dynamo headlight with a standlight capacitor."),
    ],
    "helmets": [
        ("urban-bike-helmet", "Urban bike helmet", "79.00", 15, 360, [], ACTIVE,
         "Commuter helmet with an integrated rear light."),
        ("kids-bike-helmet", "Kids' bike helmet", "39.90", 20, None, ["gift-idea"], ACTIVE,
         "Adjustable helmet for head sizes 48-54 cm."),
    ],
}

# Bob's orders, identified by their note: (note, status, [(product slug, quantity)]).
ORDERS = [
    ("Please leave the parcel with the neighbour at no. 12.", Order.Status.PAID,
     [("over-ear-wireless-headphones", 1), ("pour-over-dripper", 2)]),
    ("Ring twice, the bell is quiet.", Order.Status.PENDING,
     [("mechanical-keyboard-tkl", 1), ("vertical-mouse", 1)]),
]

# fmt: on


def _load_categories(nodes, parent=None) -> None:
    for slug, name, *children in nodes:
        category, _ = Category.objects.update_or_create(
            slug=slug, defaults={"name": name, "parent": parent}
        )
        if children:
            _load_categories(children[0], parent=category)


def _load_user(username: str, *, staff: bool):
    user, _ = get_user_model().objects.update_or_create(
        username=username,
        defaults={
            "email": f"{username}@example.com",
            "is_staff": staff,
            # A superuser can also use every page of the Django admin.
            "is_superuser": staff,
        },
    )
    user.set_password(DEMO_PASSWORDS[username])
    user.save(update_fields=["password"])
    key = DEMO_TOKENS[username]
    # Token's primary key is the key itself, so a different existing key is replaced, not edited.
    Token.objects.filter(user=user).exclude(key=key).delete()
    Token.objects.get_or_create(user=user, key=key)
    return user


@transaction.atomic
def load_demo_data() -> dict[str, int]:
    """Create or reset the demo data; returns the number of objects of each kind."""
    _load_categories(CATEGORIES)
    tags = {
        slug: Tag.objects.update_or_create(slug=slug, defaults={"name": name})[0]
        for slug, name in TAGS
    }
    categories = {category.slug: category for category in Category.objects.all()}

    products = {}
    for category, rows in PRODUCTS.items():
        for slug, name, price, stock, weight, tag_slugs, status, description in rows:
            product, _ = Product.objects.update_or_create(
                slug=slug,
                defaults={
                    "name": name,
                    "category": categories[category],
                    "price": Decimal(price),
                    "stock": stock,
                    "weight_grams": weight,
                    "status": status,
                    "description": description,
                },
            )
            product.tags.set([tags[t] for t in tag_slugs])
            products[slug] = product

    _load_user("alice", staff=True)
    bob = _load_user("bob", staff=False)

    for note, status, lines in ORDERS:
        order, _ = Order.objects.update_or_create(
            customer=bob, note=note, defaults={"status": status}
        )
        # Recreated rather than diffed: the lines are few, and this also restores their prices.
        # Stock is not touched: the catalog's stock figures above already are the demo state.
        order.items.all().delete()
        OrderItem.objects.bulk_create(
            OrderItem(
                order=order,
                product=products[slug],
                quantity=quantity,
                unit_price=products[slug].price,
            )
            for slug, quantity in lines
        )

    return {
        "categories": Category.objects.count(),
        "tags": Tag.objects.count(),
        "products": Product.objects.count(),
        "orders": Order.objects.count(),
    }
