"""OpenAPI 3.0/3.1 and Swagger 2.0 import: operations become catalog tool documents."""

__all__: list[str] = []
