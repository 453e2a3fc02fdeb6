"""Contract C servers: FastAPI, Litestar and http.server over one framework-free module (contract.py)."""
