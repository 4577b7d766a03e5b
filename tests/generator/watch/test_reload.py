"""The reload stream tells open tabs about each rebuild, as Server-Sent Events."""

from __future__ import annotations

import anyio
import httpx

from generator.watch.reload import RELOAD_PATH, ReloadBroadcaster, ReloadEndpoint, ReloadEvent


def stream_while(broadcaster: ReloadBroadcaster, publish: list[tuple[str, str]]) -> httpx.Response:
    """Opens the stream, publishes once it is subscribed, then closes the broadcaster so the
    response ends (httpx's ASGI transport returns a response only once its body is complete)."""

    async def go() -> httpx.Response:
        transport = httpx.ASGITransport(app=ReloadEndpoint(broadcaster))
        async with httpx.AsyncClient(transport=transport, base_url="http://testserver") as c:
            answer: list[httpx.Response] = []

            async def read() -> None:
                answer.append(await c.get(RELOAD_PATH))

            with anyio.fail_after(5):
                async with anyio.create_task_group() as tg:
                    tg.start_soon(read)
                    while broadcaster.subscribers == 0:
                        await anyio.sleep(0.01)
                    for name, message in publish:
                        if name == "reload":
                            broadcaster.publish_reload()
                        else:
                            broadcaster.publish_error(message)
                    await anyio.sleep(0.05)
                    broadcaster.close()
            return answer[0]

    return anyio.run(go)


def test_stream_sends_reload_and_error_events() -> None:
    answer = stream_while(ReloadBroadcaster(), [("reload", ""), ("error", "base.html, line 3: x")])
    assert answer.headers["content-type"].startswith("text/event-stream")
    assert answer.headers["cache-control"] == "no-cache"
    assert "event: reload\ndata: \n\n" in answer.text
    assert "event: error\ndata: base.html, line 3: x\n\n" in answer.text
    assert answer.text.index("event: reload") < answer.text.index("event: error")


def test_tab_opened_after_a_failed_build_gets_the_error_at_once() -> None:
    broadcaster = ReloadBroadcaster()
    broadcaster.publish_error("home.html, line 1: unexpected end of template")
    answer = stream_while(broadcaster, [])
    assert "event: error\ndata: home.html, line 1: unexpected end of template\n" in answer.text


def test_good_build_clears_the_error_for_new_tabs() -> None:
    broadcaster = ReloadBroadcaster()
    broadcaster.publish_error("broken")
    broadcaster.publish_reload()
    assert broadcaster.last_error is None
    assert "event: error" not in stream_while(broadcaster, []).text


def test_multi_line_message_is_one_data_line_per_line() -> None:
    assert ReloadEvent("error", "one\ntwo").encode() == b"event: error\ndata: one\ndata: two\n\n"


def test_closed_tab_stops_being_a_subscriber() -> None:
    broadcaster = ReloadBroadcaster()
    stream_while(broadcaster, [("reload", "")])
    assert broadcaster.subscribers == 0
