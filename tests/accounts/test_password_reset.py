"""A forgotten password, reset by email with Django's own views: the link goes only to an
address its owner verified."""

import re

import pytest
from django.contrib.auth import get_user_model
from django.core import mail
from django.test import override_settings
from django.urls import reverse

from accounts import services, verification

pytestmark = pytest.mark.django_db(transaction=True)  # the mails leave on commit
NEW_PASSWORD = "a-brand-new-pass-77"


def with_address(user, email: str, *, verified: bool):
    services.email_change(user=user, email=email, site_url="http://testserver")
    if verified:
        services.email_verify(token=verification.make_token(user, email))
    mail.outbox.clear()
    return user


def ask_for_reset(client, email: str):
    return client.post(reverse("accounts:password_reset"), {"email": email})


def test_the_login_page_links_to_the_reset(client):
    page = client.get(reverse("accounts:login")).content.decode()
    assert f'href="{reverse("accounts:password_reset")}"' in page
    assert "Forgot your password?" in page


def test_a_verified_address_receives_the_link(client, alice):
    with_address(alice, "alice@example.org", verified=True)

    response = ask_for_reset(client, "ALICE@example.org")

    assert response.status_code == 302 and response.url == reverse("accounts:password_reset_sent")
    [message] = mail.outbox
    assert message.to == ["alice@example.org"]
    assert "/accounts/password/reset/" in message.body


def test_an_unverified_address_receives_nothing_and_the_page_says_the_same(client, alice):
    with_address(alice, "alice@example.org", verified=False)

    response = ask_for_reset(client, "alice@example.org")

    assert response.status_code == 302 and response.url == reverse("accounts:password_reset_sent")
    assert mail.outbox == []


def test_an_unknown_address_receives_nothing(client, alice):
    with_address(alice, "alice@example.org", verified=True)
    ask_for_reset(client, "nobody@example.org")
    assert mail.outbox == []


def test_the_link_sets_a_new_password_once(client, alice):
    with_address(alice, "alice@example.org", verified=True)
    ask_for_reset(client, "alice@example.org")
    link = re.search(r"http://testserver(/accounts/password/reset/\S+/)", mail.outbox[0].body)[1]

    form = client.get(link, follow=True)  # Django moves the token into the session
    assert form.status_code == 200 and 'name="new_password1"' in form.content.decode()
    set_password = form.redirect_chain[-1][0]
    done = client.post(set_password, {"new_password1": NEW_PASSWORD, "new_password2": NEW_PASSWORD})

    assert done.status_code == 302 and done.url == reverse("accounts:password_reset_done")
    assert "Your new password is in use" in client.get(done.url).content.decode()
    assert get_user_model().objects.get(pk=alice.pk).check_password(NEW_PASSWORD)
    again = client.get(link, follow=True).content.decode()
    assert "This link is not valid" in again  # used once, it is spent
    login = client.post(reverse("accounts:login"), {"username": "alice", "password": NEW_PASSWORD})
    assert login.status_code == 302


@override_settings(LIMIT_PASSWORD_RESETS="2/h")
def test_reset_links_asked_for_from_one_address_are_limited(client, alice):
    with_address(alice, "alice@example.org", verified=True)
    assert ask_for_reset(client, "alice@example.org").status_code == 302
    assert ask_for_reset(client, "nobody@example.org").status_code == 302  # unknown ones count

    refused = ask_for_reset(client, "alice@example.org")

    assert refused.status_code == 429 and "Too many password resets" in refused.content.decode()
    assert len(mail.outbox) == 1
