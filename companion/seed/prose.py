"""The demo store's editorial words: article titles and paragraphs, CMS page texts.

Pure data, like ``vocabulary``; the builders in ``content_rows`` pick from it with a seeded
random generator.
"""

from __future__ import annotations

ARTICLE_CATEGORIES = (
    "Xu hướng",
    "Mẹo phối đồ",
    "Chăm sóc trang phục",
    "Tin cửa hàng",
    "Câu chuyện thương hiệu",
)

ARTICLE_TAGS = (
    "áo thun",
    "công sở",
    "mùa hè",
    "đi biển",
    "denim",
    "tối giản",
    "quà tặng",
    "Tết",
    "lụa",
    "giày",
    "bảo quản",
    "sale",
)

#: A tag no article uses: GET /article-tags lists only the tags in use.
UNUSED_TAG = "lưu trữ"

AUTHORS = ("Minh Anh", "Thu Trang", "Hoàng Nam", "Ngọc Hân", "Bảo Châu")

FEATURED_TITLES = (
    "Xu hướng thời trang Thu Đông 2026: gam màu đất lên ngôi",
    "Cách chọn size quần jean chuẩn như đo",
    "Áo dài cách tân: mặc sao cho đẹp mà vẫn giữ nét truyền thống",
    "Bí quyết giữ áo trắng luôn trắng sau nhiều lần giặt",
    "Câu chuyện nhỏ từ xưởng may ở Thủ Đức",
    "Khai trương cửa hàng mới tại Hà Nội",
    "Lụa tơ tằm Việt Nam: từ kén tằm đến tà áo",
    "Phối đồ tối giản với 10 món cơ bản",
    "Chọn giày thể thao cho người mới chạy bộ",
    "Tủ đồ con nhộng: ít mà chất",
    "Mẹo gấp quần áo gọn gàng khi đi du lịch",
    "Thời trang bền vững: mua ít hơn, chọn kỹ hơn",
)

STYLING_ITEMS = (
    "áo sơ mi trắng",
    "quần jean ống rộng",
    "đầm hoa nhí",
    "áo dài cách tân",
    "chân váy xếp ly",
    "giày thể thao trắng",
    "áo khoác denim",
    "túi tote",
)

STYLING_OCCASIONS = (
    "ngày đi làm",
    "buổi hẹn đầu tiên",
    "chuyến đi Đà Lạt",
    "mùa mưa Sài Gòn",
    "ngày Tết",
    "kỳ nghỉ ở biển",
    "cuối tuần",
)

CARE_MATERIALS = (
    "lụa tơ tằm",
    "đồ len",
    "quần jean",
    "giày da",
    "áo linen",
    "túi da thật",
)

HEADINGS = (
    "Chọn chất liệu phù hợp",
    "Màu sắc và cách phối",
    "Những lỗi thường gặp",
    "Gợi ý từ stylist của chúng tôi",
    "Bảo quản đúng cách",
    "Mua ở đâu?",
)

SENTENCES = (
    "Khí hậu nóng ẩm của Việt Nam đòi hỏi chất liệu thoáng mát và thấm hút tốt.",
    "Một chiếc áo trơn màu trung tính luôn là lựa chọn an toàn cho mọi dịp.",
    "Đừng ngại thử những gam màu nổi bật như đỏ gạch hay xanh rêu.",
    "Phụ kiện nhỏ như khăn lụa hay thắt lưng có thể thay đổi cả bộ trang phục.",
    "Hãy đọc kỹ nhãn hướng dẫn giặt trước khi cho quần áo vào máy.",
    "Chọn size vừa vặn quan trọng hơn chạy theo xu hướng.",
    "Các thiết kế của chúng tôi được may tại Việt Nam, với số lượng giới hạn.",
    "Phơi quần áo trong bóng râm giúp giữ màu lâu hơn.",
)

LIST_ITEMS = (
    "Ưu tiên cotton, linen và lụa cho ngày nắng.",
    "Giữ tông màu không quá ba màu trong một bộ.",
    "Đầu tư vào một đôi giày tốt.",
    "Luôn có một chiếc áo khoác mỏng trong túi.",
    "Ủi áo sơ mi khi còn hơi ẩm.",
    "Cất đồ len trong túi vải, tránh túi nilon.",
)

STORE_PAGES = (
    (
        "Giới thiệu",
        "gioi-thieu",
        "<h2>Về Thời Trang Sài Gòn</h2>"
        "<p>Thành lập năm 2012 từ một tiệm may nhỏ trên đường Lê Lợi, chúng tôi mang đến "
        "trang phục may tại Việt Nam, chất liệu tốt và giá hợp lý.</p>"
        "<ul><li>Hơn 20 cửa hàng trên toàn quốc</li><li>Xưởng may riêng tại Thủ Đức</li></ul>",
    ),
    (
        "Chính sách đổi trả",
        "chinh-sach-doi-tra",
        "<h2>Đổi trả trong 30 ngày</h2>"
        "<p>Sản phẩm còn nguyên tem mác được đổi size hoặc trả hàng miễn phí trong 30 ngày "
        "kể từ ngày nhận.</p><ul><li>Không áp dụng cho đồ lót và phụ kiện cá nhân</li>"
        "<li>Hoàn tiền trong 3 &ndash; 5 ngày làm việc</li></ul>",
    ),
    (
        "Liên hệ",
        "lien-he",
        '<p>Hotline: <a href="tel:19006868">1900 6868</a> (8:00 &ndash; 22:00)</p>'
        "<p>Email: hotro@thoitrangsaigon.vn</p>",
    ),
    (
        "Chính sách bảo mật",
        "chinh-sach-bao-mat",
        "<p>Chúng tôi chỉ dùng thông tin của bạn để giao hàng và chăm sóc khách hàng.</p>",
    ),
    (
        "Điều khoản dịch vụ",
        "dieu-khoan-dich-vu",
        "<p>Khi đặt hàng tại website, bạn đồng ý với các điều khoản dưới đây.</p>",
    ),
    (
        "Hướng dẫn chọn size",
        "huong-dan-chon-size",
        "<h2>Bảng size áo</h2><ul><li>S: 45 &ndash; 50 kg</li><li>M: 50 &ndash; 55 kg</li>"
        "<li>L: 55 &ndash; 62 kg</li><li>XL: 62 &ndash; 70 kg</li></ul>",
    ),
    (
        "Tuyển dụng",
        "tuyen-dung",
        "<p>Chúng tôi đang tìm nhân viên bán hàng tại TP. Hồ Chí Minh và Hà Nội.</p>",
    ),
)
