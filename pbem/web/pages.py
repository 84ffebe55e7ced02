"""The pages people use (placeholder: being built)."""

from flask import Blueprint

bp = Blueprint("pages", __name__)
