"""The demo store's catalogue words: category lines, product words, colours, sizes, brands.

Pure data. Every name carries its Vietnamese diacritics, because accent folding, slugs and
escaping are exactly what the demo store exists to exercise.
"""

from __future__ import annotations

from dataclasses import dataclass

SIZE = "Kích cỡ"
COLOUR = "Màu"

CLOTHING_SIZES = ("S", "M", "L", "XL", "XXL")
SHOE_SIZES = ("35", "36", "37", "38", "39", "40", "41", "42", "43", "44")
KIDS_SIZES = ("1-2 tuổi", "3-4 tuổi", "5-6 tuổi", "7-8 tuổi", "9-10 tuổi")
ONE_SIZE = ("Freesize",)
NO_SIZE: tuple[str, ...] = ()

#: Sizes that cost a little more (more fabric, larger last).
LARGE_SIZES = frozenset({"XXL", "43", "44"})

COLOURS = (
    "Đen",
    "Trắng",
    "Đỏ",
    "Xanh navy",
    "Xanh rêu",
    "Be",
    "Hồng",
    "Vàng",
    "Nâu",
    "Xám",
    "Kem",
    "Tím",
)

BRANDS = (
    "Sài Gòn Denim",
    "Hà Nội Basic",
    "Lụa Việt",
    "Mekong Leather",
    "Phố Cổ",
    "An Nhiên",
    "Biển Xanh",
    "Hồng Hà",
    "Tre Xanh",
    "Đông Du",
)


@dataclass(frozen=True, slots=True)
class ProductLine:
    """A leaf category and the words its products are named from."""

    name: str
    kinds: tuple[str, ...]
    features: tuple[str, ...]
    materials: tuple[str, ...]
    price_range: tuple[int, int]  # thousands of VND, inclusive
    sizes: tuple[str, ...]


@dataclass(frozen=True, slots=True)
class Department:
    """A top-level category and its lines (the two-level tree)."""

    name: str
    blurb: str
    lines: tuple[ProductLine, ...]


DEPARTMENTS = (
    Department(
        "Thời trang nữ",
        "Áo, đầm và áo dài cho phái đẹp, may tại Việt Nam.",
        (
            ProductLine(
                "Áo thun nữ",
                ("Áo thun nữ", "Áo phông nữ", "Áo croptop", "Áo polo nữ"),
                ("cổ tròn", "cổ tim", "tay lỡ", "oversize", "thêu hoa sen", "kẻ sọc", "basic"),
                ("cotton", "cotton 100%", "thun lạnh", "cotton organic"),
                (129, 299),
                CLOTHING_SIZES,
            ),
            ProductLine(
                "Áo sơ mi nữ",
                ("Áo sơ mi nữ", "Áo kiểu", "Áo blouse"),
                ("tay phồng", "cổ nơ", "cổ đức", "tay dài", "xếp ly", "công sở"),
                ("lụa", "voan", "linen", "kate", "lụa tơ tằm"),
                (249, 590),
                CLOTHING_SIZES,
            ),
            ProductLine(
                "Đầm",
                ("Đầm", "Váy liền", "Đầm maxi", "Đầm suông"),
                ("hoa nhí", "dự tiệc", "đi biển", "cổ vuông", "hai dây", "xòe", "trễ vai"),
                ("voan", "lụa", "linen", "tafta", "cotton"),
                (299, 1290),
                CLOTHING_SIZES,
            ),
            ProductLine(
                "Quần jean nữ",
                ("Quần jean nữ", "Quần jean"),
                ("lưng cao", "ống rộng", "rách gối", "ống loe", "wash nhạt", "cạp chun"),
                ("denim co giãn", "denim cotton"),
                (299, 690),
                CLOTHING_SIZES,
            ),
            ProductLine(
                "Áo dài",
                ("Áo dài", "Áo dài cách tân"),
                ("thêu hoa mai", "trơn", "in hoa sen", "cổ thuyền", "tay lỡ"),
                ("lụa", "gấm", "nhung", "voan", "lụa tơ tằm"),
                (490, 2490),
                CLOTHING_SIZES,
            ),
        ),
    ),
    Department(
        "Thời trang nam",
        "Trang phục nam lịch sự cho công sở và cuối tuần.",
        (
            ProductLine(
                "Áo thun nam",
                ("Áo thun nam", "Áo polo nam", "Áo ba lỗ"),
                ("cổ tròn", "cổ bẻ", "in hình", "trơn", "thể thao", "kẻ ngang"),
                ("cotton", "cá sấu", "thun lạnh", "cotton compact"),
                (149, 349),
                CLOTHING_SIZES,
            ),
            ProductLine(
                "Áo sơ mi nam",
                ("Áo sơ mi nam", "Áo sơ mi"),
                ("tay dài", "tay ngắn", "kẻ caro", "cổ trụ", "slim fit", "công sở"),
                ("oxford", "linen", "kate", "bamboo"),
                (259, 650),
                CLOTHING_SIZES,
            ),
            ProductLine(
                "Quần jean nam",
                ("Quần jean nam", "Quần jean", "Quần short jean"),
                ("ống đứng", "ống côn", "rách nhẹ", "wash đậm", "basic"),
                ("denim co giãn", "denim cotton"),
                (329, 790),
                CLOTHING_SIZES,
            ),
            ProductLine(
                "Quần kaki",
                ("Quần kaki", "Quần tây", "Quần jogger"),
                ("ống đứng", "lưng thun", "túi hộp", "slim fit"),
                ("kaki", "kaki co giãn", "vải tuytsi"),
                (279, 590),
                CLOTHING_SIZES,
            ),
            ProductLine(
                "Áo khoác",
                ("Áo khoác", "Áo khoác gió", "Áo khoác bomber", "Áo hoodie"),
                ("có mũ", "chống nắng", "hai lớp", "cổ đứng", "dáng rộng"),
                ("dù", "nỉ", "jean", "kaki"),
                (349, 1190),
                CLOTHING_SIZES,
            ),
        ),
    ),
    Department(
        "Giày dép",
        "Giày và dép êm chân cho mọi dịp.",
        (
            ProductLine(
                "Giày thể thao",
                ("Giày thể thao", "Giày sneaker", "Giày chạy bộ"),
                ("đế êm", "cổ thấp", "cổ cao", "phản quang", "siêu nhẹ"),
                ("vải lưới", "da tổng hợp", "canvas"),
                (390, 1490),
                SHOE_SIZES,
            ),
            ProductLine(
                "Giày cao gót",
                ("Giày cao gót", "Giày búp bê", "Giày mũi nhọn"),
                ("gót vuông", "gót nhọn 7 phân", "quai mảnh", "đính nơ"),
                ("da bóng", "da lộn", "da thật"),
                (350, 990),
                SHOE_SIZES[:6],
            ),
            ProductLine(
                "Sandal",
                ("Sandal", "Sandal quai hậu", "Giày sandal"),
                ("đế bằng", "đế xuồng", "quai chéo", "đi biển"),
                ("da", "vải dù", "cao su"),
                (199, 590),
                SHOE_SIZES,
            ),
            ProductLine(
                "Dép",
                ("Dép", "Dép lê", "Dép tổ ong"),
                ("quai ngang", "đi trong nhà", "chống trượt", "đế dày"),
                ("cao su", "xốp EVA", "da"),
                (59, 290),
                SHOE_SIZES,
            ),
        ),
    ),
    Department(
        "Túi xách & ví",
        "Túi, balo và ví da thủ công.",
        (
            ProductLine(
                "Túi xách tay",
                ("Túi xách tay", "Túi tote", "Túi đeo chéo"),
                ("mini", "cỡ lớn", "khóa bấm", "quai xích", "đan tay"),
                ("da thật", "da PU", "cói", "canvas"),
                (290, 1890),
                NO_SIZE,
            ),
            ProductLine(
                "Balo",
                ("Balo", "Balo laptop", "Balo du lịch"),
                ("chống nước", "nhiều ngăn", "dáng vuông", "nắp gập"),
                ("vải dù", "canvas", "da PU"),
                (250, 990),
                NO_SIZE,
            ),
            ProductLine(
                "Ví",
                ("Ví", "Ví cầm tay", "Ví nam"),
                ("dáng dài", "gập đôi", "khắc tên", "mini"),
                ("da bò", "da PU", "da cá sấu"),
                (150, 890),
                NO_SIZE,
            ),
        ),
    ),
    Department(
        "Phụ kiện",
        "Những món nhỏ hoàn thiện bộ trang phục.",
        (
            ProductLine(
                "Mũ nón",
                ("Mũ lưỡi trai", "Nón lá", "Mũ bucket", "Mũ rộng vành"),
                ("thêu chữ", "đi biển", "gấp gọn", "chống nắng"),
                ("cotton", "lá cọ", "cói", "kaki"),
                (89, 390),
                ONE_SIZE,
            ),
            ProductLine(
                "Thắt lưng",
                ("Thắt lưng", "Dây nịt"),
                ("khóa tự động", "khóa kim", "bản nhỏ", "bản to"),
                ("da bò", "da PU", "vải bố"),
                (150, 690),
                ("90 cm", "100 cm", "110 cm", "120 cm"),
            ),
            ProductLine(
                "Khăn",
                ("Khăn choàng", "Khăn lụa", "Khăn rằn"),
                ("vuông", "dài", "in hoa", "thêu tay"),
                ("lụa tơ tằm", "cotton", "len"),
                (99, 590),
                ONE_SIZE,
            ),
            ProductLine(
                "Kính mát",
                ("Kính mát", "Kính râm"),
                ("gọng tròn", "mắt mèo", "phân cực", "gọng kim loại"),
                ("gọng nhựa", "gọng titan"),
                (190, 1290),
                ONE_SIZE,
            ),
        ),
    ),
    Department(
        "Trẻ em",
        "Quần áo cho bé từ sơ sinh đến 10 tuổi.",
        (
            ProductLine(
                "Bé trai",
                ("Bộ quần áo bé trai", "Áo thun bé trai", "Quần short bé trai"),
                ("in khủng long", "siêu nhân", "kẻ sọc", "thể thao"),
                ("cotton", "thun lạnh"),
                (99, 350),
                KIDS_SIZES,
            ),
            ProductLine(
                "Bé gái",
                ("Đầm bé gái", "Bộ quần áo bé gái", "Chân váy bé gái"),
                ("công chúa", "hoa nhí", "tay bồng", "đính nơ"),
                ("voan", "cotton", "thô"),
                (119, 450),
                KIDS_SIZES,
            ),
            ProductLine(
                "Sơ sinh",
                ("Bộ body sơ sinh", "Yếm sơ sinh", "Bao tay chân sơ sinh"),
                ("cài vai", "dài tay", "in hình thú"),
                ("cotton organic", "sợi tre"),
                (69, 290),
                ("0-3 tháng", "3-6 tháng", "6-12 tháng"),
            ),
        ),
    ),
)

#: Words that make extra lines when the catalogue grows ("Đầm dự tiệc", "Balo cao cấp").
LINE_QUALIFIERS = (
    "cao cấp",
    "công sở",
    "dạo phố",
    "thể thao",
    "mùa hè",
    "mùa đông",
    "dự tiệc",
    "basic",
)

PRODUCT_SELLING_POINTS = (
    "đường may tỉ mỉ, form chuẩn người Việt.",
    "mềm mại, thoáng mát cho khí hậu nhiệt đới.",
    "dễ phối đồ, phù hợp đi làm lẫn đi chơi.",
    "được may tại xưởng của chúng tôi ở Thủ Đức.",
    "giữ màu tốt sau nhiều lần giặt.",
    "thiết kế giới hạn, số lượng có hạn.",
)

CARE_NOTES = (
    "Giặt tay hoặc giặt máy ở chế độ nhẹ.",
    "Không dùng chất tẩy, phơi nơi thoáng mát.",
    "Là ở nhiệt độ thấp, lộn trái khi giặt.",
    "Giặt khô để giữ form đẹp lâu nhất.",
)

COLLECTION_FEATURED = (
    "Khuyến mãi hè",
    "Hàng mới về",
    "Bán chạy nhất",
    "Giá tốt mỗi ngày",
    "Chỉ có online",
)

COLLECTION_THEMES = (
    "Dạo phố cuối tuần",
    "Công sở thanh lịch",
    "Đi biển",
    "Dự tiệc",
    "Tối giản",
    "Cổ điển",
    "Năng động",
    "Du lịch",
    "Dã ngoại",
    "Hẹn hò",
    "Mặc nhà",
    "Tết sum vầy",
    "Đi học",
    "Thể thao",
    "Vintage Sài Gòn",
    "Phố cổ Hội An",
    "Đà Lạt mộng mơ",
    "Hà Nội mùa thu",
    "Mekong xanh",
    "Quà tặng",
    "Cặp đôi",
    "Gia đình",
    "Ngày mưa",
)

COLLECTION_SEASONS = (
    "Xuân 2025",
    "Hè 2025",
    "Thu 2025",
    "Đông 2025",
    "Xuân 2026",
    "Hè 2026",
    "Thu 2026",
    "Đông 2026",
    "Lookbook",
    "Tuyển chọn",
)
