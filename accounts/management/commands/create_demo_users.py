"""Create (or reset) the demo instructor and learner that `make run` prints."""

import os

from django.contrib.auth.models import User
from django.core.management.base import BaseCommand

from accounts.roles import instructor_group

DEMO_USERS = (
    ("instructor", "DEMO_INSTRUCTOR_PASSWORD", "instructor-demo-pass", True),
    ("learner", "DEMO_LEARNER_PASSWORD", "learner-demo-pass", False),
)


class Command(BaseCommand):
    help = "Create the demo instructor and learner accounts (safe to run again)."

    def handle(self, *args, **options):
        for username, env_name, default_password, instructor in DEMO_USERS:
            password = os.environ.get(env_name, default_password)
            user, created = User.objects.get_or_create(username=username, defaults={"email": f"{username}@example.com"})
            user.set_password(password)
            user.save()
            if instructor:
                user.groups.add(instructor_group())
            role = "instructor" if instructor else "learner"
            verb = "created" if created else "ready"
            self.stdout.write(f"  {role:<10} {username} / {password}  ({verb})")
