from django.apps import AppConfig


class AccountsConfig(AppConfig):
    name = "accounts"
    verbose_name = "Accounts and roles"

    def ready(self):
        from django.contrib.auth import get_user_model
        from django.db.models.signals import m2m_changed, post_delete, post_save

        from .backends import groups_changed, user_changed

        user_model = get_user_model()
        post_save.connect(user_changed, sender=user_model, dispatch_uid="accounts.user_saved")
        post_delete.connect(user_changed, sender=user_model, dispatch_uid="accounts.user_deleted")
        m2m_changed.connect(groups_changed, sender=user_model.groups.through, dispatch_uid="accounts.groups")
