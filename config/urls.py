from django.conf import settings
from django.contrib import admin
from django.urls import include, path
from django.views.generic import RedirectView, TemplateView

import common.converters  # noqa: F401  registers <id:...> before the includes
from health import views as health

urlpatterns = [
    path("", TemplateView.as_view(template_name="home.html"), name="home"),
    path("healthz", health.healthz, name="healthz"),
    path("status/", health.status_page, name="health"),
    path("accounts/", include("accounts.urls")),
    path("course/", include("course.urls")),
    path("drills/", include("drills.urls")),
    path("labs/", include("labs.urls")),
    path("instructor/", include("instructor.urls")),
    path("experiments/", include("experiments.urls")),
    path("admin/", admin.site.urls),
    path("favicon.ico", RedirectView.as_view(url=f"{settings.STATIC_URL}favicon.svg")),
]
