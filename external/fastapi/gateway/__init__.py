"""Contract B (LLM gateway) on FastAPI; see external/fastapi/README.md."""
