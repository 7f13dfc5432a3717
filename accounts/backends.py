"""The sign-in backend: Django's ModelBackend, with the user each request loads read from the cache.

Every page loads the signed-in user, and most ask whether they teach (`roles.is_instructor`): two
queries a request. Both now come from one cached entry, dropped whenever the user row or their groups
change (receivers below, connected in `AccountsConfig.ready`), so a new password, a deactivated
account or a new instructor takes effect on the next request.
"""

from django.contrib.auth import get_user_model
from django.contrib.auth.backends import ModelBackend

from common.readcache import forget, remember

from .roles import is_instructor


def user_key(user_id) -> str:
    return f"auth-user:{user_id}"


class CachedModelBackend(ModelBackend):
    def get_user(self, user_id):
        def load():
            user = super(CachedModelBackend, self).get_user(user_id)
            if user is not None:
                is_instructor(user)  # stores the role on the instance, so it is cached with it
            return user

        return remember(user_key(user_id), load)


def user_changed(sender, instance, **kwargs):
    forget(user_key(instance.pk))


def groups_changed(sender, instance, action, reverse, pk_set, **kwargs):
    """`user.groups` or `group.user_set` changed: forget every user whose groups did."""
    if isinstance(instance, get_user_model()):
        forget(user_key(instance.pk))
    elif action == "pre_clear":  # a group emptied: its members are not named in pk_set
        forget(*[user_key(pk) for pk in instance.user_set.values_list("pk", flat=True)])
    elif action.startswith("post_") and pk_set:
        forget(*[user_key(pk) for pk in pk_set])
