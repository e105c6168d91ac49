"""/v1/docs in a real browser: Swagger UI from this origin only, showing every route."""

from __future__ import annotations

from typing import Any

from .conftest import Server


def test_api_docs_load_nothing_from_another_origin(page: Any, server: Server) -> None:
    page.goto("/v1/docs")
    # Swagger UI draws one block per operation once it has read /v1/openapi.json.
    page.wait_for_selector("#operations-default-verify_log_v1_verify_post, .opblock")
    paths = page.locator(".opblock-summary-path").all_inner_texts()
    assert any("/v1/verify" in p for p in paths)
    assert any("/v1/replay" in p for p in paths)
    # The page's own promise, checked by the browser too: no script from elsewhere may run.
    policy = page.request.get("/v1/docs").headers
    assert "default-src 'self'" in policy["content-security-policy"]
