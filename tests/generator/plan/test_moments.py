"""The moments a build's pages change by time alone: sales' and banners' starts and ends, the
past and the far future left out, capped in number; and the file each build records them in."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from pathlib import Path

from generator.crawl import normalize

NOW = datetime(2026, 12, 2, 12, 0, tzinfo=UTC)
HOUR = 3600.0
DAY = 24 * HOUR


def sale(ident: int, name: str, starts: str | None, ends: str | None, status: str) -> object:
    return normalize.flash_sale(
        {"id": ident, "name": name, "starts_at": starts, "ends_at": ends, "status": status}
    )


def banner(ident: int, title: str, starts: str | None, ends: str | None) -> object:
    return normalize.banner(
        {
            "id": ident,
            "title": title,
            "location_code": "home_hero",
            "position": 0,
            "starts_at": starts,
            "ends_at": ends,
        }
    )


def test_starts_and_ends_to_come_in_order_the_wire_times_read_as_utc() -> None:
    from generator.plan.moments import Moment, moments_of

    found = moments_of(
        [
            sale(1, "Giờ vàng", "2026-12-01T00:00:00", "2026-12-02T20:00:00", "running"),
            sale(2, "Ngày hội", "2026-12-03T01:00:00Z", "2026-12-04T00:00:00+07:00", "scheduled"),
            sale(3, "Cuối mùa", "2026-11-01T00:00:00", "2026-11-02T00:00:00", "ended"),
        ],
        [
            banner(7, "Thu Đông", "2026-11-20T00:00:00", "2026-12-02T13:30:00.250"),
            banner(8, "Không hạn", "2026-11-20T00:00:00", None),
        ],
        NOW,
        horizon=7 * DAY,
        limit=20,
    )
    assert found == (
        Moment(datetime(2026, 12, 2, 13, 30, 0, 250000, tzinfo=UTC), 'Banner "Thu Đông" ends'),
        Moment(datetime(2026, 12, 2, 20, 0, tzinfo=UTC), 'Flash sale "Giờ vàng" ends'),
        Moment(datetime(2026, 12, 3, 1, 0, tzinfo=UTC), 'Flash sale "Ngày hội" starts'),
        Moment(datetime(2026, 12, 3, 17, 0, tzinfo=UTC), 'Flash sale "Ngày hội" ends'),
    )


def test_the_far_future_is_left_out_and_the_number_capped() -> None:
    from generator.plan.moments import moments_of

    sales = [
        sale(i, f"Sale {i}", None, (NOW + timedelta(hours=i)).isoformat(), "running")
        for i in range(1, 30)
    ]
    assert [m.what for m in moments_of(sales, [], NOW, horizon=5 * HOUR, limit=20)] == [
        f'Flash sale "Sale {i}" ends' for i in range(1, 6)
    ]
    assert len(moments_of(sales, [], NOW, horizon=30 * DAY, limit=3)) == 3


def test_an_end_the_api_still_shows_shortly_after_it_is_kept_an_old_one_is_not() -> None:
    """An API whose clock is a little behind still lists the sale: the next build is due at
    once. One that never drops an ended sale does not make every build due."""
    from generator.plan.moments import GRACE, moments_of

    just = (NOW - timedelta(seconds=GRACE / 2)).isoformat()
    old = (NOW - timedelta(seconds=GRACE * 2)).isoformat()
    found = moments_of(
        [
            sale(1, "Vừa hết", None, just, "running"),
            sale(2, "Đã lâu", None, old, "running"),
            sale(3, "Đang chạy", just, (NOW + timedelta(days=2)).isoformat(), "running"),
            sale(4, "Chưa chạy", just, None, "scheduled"),
        ],
        [],
        NOW,
        horizon=DAY,
        limit=20,
    )
    # A running sale's start has taken effect; one the API still calls scheduled has not.
    assert [m.what for m in found] == [
        'Flash sale "Chưa chạy" starts',
        'Flash sale "Vừa hết" ends',
    ]


def test_the_record_round_trips_and_says_what_is_due(tmp_path: Path) -> None:
    from generator.plan.moments import Moment
    from generator.write.schedule_file import Schedule, load_schedule, save_schedule

    first = Moment(NOW + timedelta(hours=8), 'Flash sale "Giờ vàng" ends')
    second = Moment(NOW + timedelta(days=2), 'Banner "Thu Đông" ends')
    save_schedule(tmp_path, Schedule(NOW, (first, second)))
    record = load_schedule(tmp_path)
    assert record == Schedule(NOW, (first, second))
    assert record.passed(NOW + timedelta(hours=1)) == ()
    assert record.upcoming(NOW + timedelta(hours=1)) == first
    assert record.passed(NOW + timedelta(hours=9)) == (first,)
    (tmp_path / "schedule.json").write_text("{not json", encoding="utf-8")
    assert load_schedule(tmp_path) is None
