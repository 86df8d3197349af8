"""`langgraph dev` answers its own origins only, as the page does (issue 87): the middleware app/server.py adds to
every route of the server, and the auth handler that makes a thread its creator's. The whole server is exercised
in tests/integration/test_langgraph_server.py; here the guard answers before any LangGraph route would."""

from __future__ import annotations

import asyncio
import json
from collections.abc import Iterator
from typing import Any

import pytest
from langgraph_sdk import Auth
from starlette.testclient import TestClient

from app.auth import authenticate, owned
from app.server import MAX_API_BODY_BYTES, app
from app.web.keys import api_key, api_owner
from app.web.presence import data_dir_id
from tools.errors import InputError
from tools.settings import load_settings

RUN = {"assistant_id": "consult", "input": {"question": "醉驾怎么处罚？"}}


@pytest.fixture
def client() -> Iterator[TestClient]:
    with TestClient(app, base_url="http://127.0.0.1:2024") as test_client:
        yield test_client


def _refused(response: Any, status: int, named: str) -> None:
    assert response.status_code == status, response.text
    assert named in response.json()["detail"]


@pytest.mark.parametrize("method", ["OPTIONS", "POST", "GET"])
def test_another_sites_page_is_refused_on_every_route_and_method(client: TestClient, method: str) -> None:
    headers = {"Origin": "http://evil.example", "Access-Control-Request-Method": "POST"}
    for path in ("/threads/search", "/runs/wait", "/assistants/search", "/threads/t1/state", "/page/api/health"):
        response = client.request(method, path, headers=headers, content=b"{}" if method == "POST" else None)
        _refused(response, 403, "from http://evil.example is not from this page")
        assert "access-control-allow-origin" not in response.headers  # never the wildcard grant again
        assert "access-control-allow-private-network" not in response.headers


@pytest.mark.parametrize("origin", ["http://127.0.0.1:2024", "http://localhost:3000", "https://smith.langchain.com"])
def test_its_own_a_loopback_chat_ui_and_studio_origins_pass_the_guard(client: TestClient, origin: str) -> None:
    # No LangGraph route is mounted here: passing the guard ends at the router's 404.
    assert client.post("/threads/search", json={}, headers={"Origin": origin}).status_code == 404


def test_a_foreign_host_is_refused_as_dns_rebinding(client: TestClient) -> None:
    _refused(client.get("/threads/t1/state", headers={"Host": "attacker.example:2024"}), 421, "not 'attacker.example")
    _refused(client.post("/runs/wait", json=RUN, headers={"Host": "attacker.example"}), 421, "this server answers")


def test_a_body_over_the_limit_is_a_413_however_it_is_sent(client: TestClient) -> None:
    big = json.dumps({**RUN, "input": {"question": "问" * (10 * 1024 * 1024 // 3)}}, ensure_ascii=False).encode()
    _refused(client.post("/runs", content=big, headers={"Content-Type": "application/json"}), 413, "over 1048576")

    def chunks() -> Iterator[bytes]:  # no Content-Length: counted as it arrives
        yield b'{"assistant_id": "consult", "metadata": {"x": "'
        for _ in range(MAX_API_BODY_BYTES // 65536 + 2):
            yield b"x" * 65536
        yield b'"}}'

    sent = client.post("/threads", content=chunks(), headers={"Content-Type": "application/json"})
    _refused(sent, 413, f"over {MAX_API_BODY_BYTES} bytes")


def test_nesting_non_json_and_unreadable_text_are_422s_naming_them(client: TestClient) -> None:
    deep = b'{"assistant_id": "consult", "input": ' + b"[" * 100_000 + b"]" * 100_000 + b"}"
    _refused(client.post("/runs", content=deep, headers={"Content-Type": "application/json"}), 422, "nests too deeply")
    _refused(client.post("/runs/wait", content=b"{run", headers={"Content-Type": "application/json"}), 422, "not JSON")
    surrogate = b'{"assistant_id": "consult", "input": {"question": "\\u76d7\\ud800\\u7a83"}}'
    sent = client.post("/runs/wait", content=surrogate, headers={"Content-Type": "application/json"})
    _refused(sent, 422, "body.input.question holds a lone surrogate (U+D800 at character 2)")
    _refused(client.post("/threads", json={"metadata": {"n": "a\x00b"}}), 422, "control character (U+0000")
    sent = client.post("/threads/search", content=b"{}", headers={"Content-Type": "text/plain"})
    _refused(sent, 415, "must be application/json, not text/plain")
    _refused(client.post("/runs/wait", json={**RUN, "input": {"question": " "}}), 422, "the question is empty")


def test_only_studios_origin_may_claim_to_be_studio(client: TestClient) -> None:
    studio = {"x-auth-scheme": "langsmith"}
    _refused(client.post("/threads/search", json={}, headers=studio), 403, "LangGraph Studio's")
    passed = client.post("/threads/search", json={}, headers={**studio, "Origin": "https://smith.langchain.com"})
    assert passed.status_code == 404


def test_a_key_names_its_owner_and_only_the_data_dirs_secret_makes_one() -> None:
    settings = load_settings()
    alice = api_key(settings, "alice")
    assert api_owner(settings, alice) == "alice" and api_owner(settings, alice.replace("alice", "bob")) is None
    assert api_owner(settings, "alice." + "0" * 32) is None and api_owner(settings, "") is None
    with pytest.raises(InputError, match="must be 1 to 64 letters"):
        api_key(settings, "a b")
    identity = {"identity": f"alice@{data_dir_id(settings)}"}
    assert asyncio.run(authenticate(f"Bearer {alice}", {})) == identity
    assert asyncio.run(authenticate(None, {b"x-api-key": alice.encode()})) == identity  # agent-chat-ui's field
    for header in (None, alice, f"Bearer {alice}x", "Basic abc"):
        with pytest.raises(Auth.exceptions.HTTPException) as refused:
            asyncio.run(authenticate(header, {b"x-api-key": b"alice." + b"0" * 32}))
        assert refused.value.status_code == 401 and "jurisgraph api-key" in str(refused.value.detail)


def test_what_an_owner_creates_is_marked_theirs_and_every_read_filtered_to_theirs() -> None:
    class User:
        identity = "alice"

    ctx: Any = type("Ctx", (), {"user": User(), "resource": "threads", "action": "create", "permissions": []})()
    value: dict[str, Any] = {"metadata": {"topic": "租房"}}
    assert asyncio.run(owned(ctx, value)) == {"owner": "alice"}
    assert value["metadata"] == {"topic": "租房", "owner": "alice"}
    searched: dict[str, Any] = {"metadata": None, "limit": 10}
    assert asyncio.run(owned(ctx, searched)) == {"owner": "alice"} and searched["metadata"] == {"owner": "alice"}


def test_a_websocket_from_another_site_or_host_is_closed_before_it_opens(client: TestClient) -> None:
    from starlette.websockets import WebSocketDisconnect

    for headers in ({"Origin": "http://evil.example"}, {"Host": "attacker.example"}):
        with (
            pytest.raises(WebSocketDisconnect) as closed,
            client.websocket_connect("/threads/t1/stream/events", headers=headers),
        ):
            pass
        assert closed.value.code == 1008
