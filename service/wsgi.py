"""The WSGI entry point gunicorn serves: ``service.wsgi:app``."""

from service.http import create_app

app = create_app()
