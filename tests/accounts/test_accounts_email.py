"""An email address at sign-up and in the settings, verified by following the signed, expiring
link sent to it; no two accounts share a verified address.

The mails leave once their transaction commits: these tests commit (Django's locmem outbox).
"""

import re

import pytest
from django.contrib.auth import get_user_model
from django.core import mail, signing
from django.test import override_settings
from django.urls import reverse

from accounts import verification
from accounts.selectors import email_verified

pytestmark = pytest.mark.django_db(transaction=True)
PASSWORD = "a-long-pass-42"


def sign_up(client, name: str, email: str = ""):
    data = {"username": name, "password1": PASSWORD, "password2": PASSWORD, "email": email}
    return client.post(reverse("accounts:signup"), data)


def link_in(message) -> str:
    """The path of the verification link in a mail."""
    url = re.search(r"https?://testserver(/accounts/email/\S+/)", message.body)
    assert url, message.body
    return url[1]


def user(name: str):
    return get_user_model().objects.get(username=name)


def test_sign_up_without_an_email_sends_nothing(client):
    response = sign_up(client, "anna")

    assert response.status_code == 302
    assert user("anna").email == "" and mail.outbox == []


def test_sign_up_with_an_email_sends_a_link_and_the_address_waits_for_it(client):
    response = sign_up(client, "anna", "Anna@Example.ORG")

    assert response.status_code == 302
    anna = user("anna")
    assert anna.email == "Anna@example.org"  # the domain's case does not matter
    assert not email_verified(anna)
    [message] = mail.outbox
    assert message.to == ["Anna@example.org"] and "anna" in message.body
    page = client.get(reverse("game:lobby")).content.decode()
    assert (
        "We sent a link to \N{FIRST STRONG ISOLATE}Anna@example.org\N{POP DIRECTIONAL ISOLATE}"
        in page
    )


def test_following_the_link_verifies_the_address(client):
    sign_up(client, "anna", "anna@example.org")
    client.logout()  # the link works in any browser

    page = client.get(link_in(mail.outbox[0]))

    assert page.status_code == 200 and "Email address verified" in page.content.decode()
    assert email_verified(user("anna"))


def test_an_expired_link_verifies_nothing(client, monkeypatch):
    sign_up(client, "anna", "anna@example.org")
    later = signing.time.time() + verification.MAX_AGE.total_seconds() + 1
    monkeypatch.setattr(signing.time, "time", lambda: later)

    page = client.get(link_in(mail.outbox[0]))

    assert page.status_code == 400 and "This link has expired" in page.content.decode()
    assert not email_verified(user("anna"))


def test_a_tampered_link_verifies_nothing(client, bob):
    sign_up(client, "anna", "anna@example.org")
    path = link_in(mail.outbox[0])
    token = path.split("/")[-2]
    # The same token claiming bob's account: the signature no longer matches.
    payload, rest = token.split(":", 1)
    forged = signing.b64_encode(f'[{bob.pk},"anna@example.org"]'.encode()).decode()
    assert forged != payload

    page = client.get(reverse("accounts:verify_email", args=[f"{forged}:{rest}"]))

    assert page.status_code == 400 and "This link is not valid" in page.content.decode()
    assert not email_verified(user("anna")) and not email_verified(bob)


def test_a_link_for_an_address_since_changed_verifies_nothing(client):
    sign_up(client, "anna", "anna@example.org")
    old = link_in(mail.outbox[0])
    client.post(reverse("accounts:email"), {"email": "anna@example.net"})

    page = client.get(old)

    assert page.status_code == 400 and "no longer on the account" in page.content.decode()
    assert not email_verified(user("anna"))


def test_settings_show_whether_the_address_is_verified(client):
    sign_up(client, "anna", "anna@example.org")
    settings_page = reverse("accounts:settings")
    waiting = client.get(settings_page).content.decode()
    assert "is not verified yet" in waiting and "Send the link again" in waiting

    client.get(link_in(mail.outbox[0]))

    verified = client.get(settings_page).content.decode()
    assert "is verified" in verified and "Send the link again" not in verified


def test_the_link_can_be_sent_again(client):
    sign_up(client, "anna", "anna@example.org")

    client.post(reverse("accounts:email_resend"))

    assert len(mail.outbox) == 2
    assert client.get(link_in(mail.outbox[1])).status_code == 200
    assert email_verified(user("anna"))


@override_settings(LIMIT_EMAIL_LINKS="2/h")
def test_links_sent_on_request_are_limited_per_player(client):
    sign_up(client, "anna", "anna@example.org")  # the sign-up's own limit counts this one
    client.post(reverse("accounts:email_resend"))
    client.post(reverse("accounts:email"), {"email": "anna@example.net"})

    refused = client.post(reverse("accounts:email_resend"))

    assert refused.status_code == 429
    assert "too many verification links" in refused.content.decode()
    assert len(mail.outbox) == 3


def test_a_verified_address_is_not_sent_the_link_again(client):
    sign_up(client, "anna", "anna@example.org")
    client.get(link_in(mail.outbox[0]))

    page = client.post(reverse("accounts:email_resend"), follow=True).content.decode()

    assert "already verified" in page and len(mail.outbox) == 1


def test_a_new_address_in_the_settings_is_unverified_until_its_link(client):
    sign_up(client, "anna", "anna@example.org")
    client.get(link_in(mail.outbox[0]))

    client.post(reverse("accounts:email"), {"email": "anna@example.net"})

    anna = user("anna")
    assert anna.email == "anna@example.net" and not email_verified(anna)
    assert mail.outbox[-1].to == ["anna@example.net"]
    client.get(link_in(mail.outbox[-1]))
    assert email_verified(user("anna"))


def test_the_address_can_be_removed(client):
    sign_up(client, "anna", "anna@example.org")
    client.get(link_in(mail.outbox[0]))

    client.post(reverse("accounts:email"), {"email": ""})

    anna = user("anna")
    assert anna.email == "" and not email_verified(anna)
    assert len(mail.outbox) == 1


def test_a_bad_address_is_refused_on_the_settings_page(client):
    sign_up(client, "anna")

    page = client.post(reverse("accounts:email"), {"email": "not an address"})

    assert page.status_code == 400 and 'class="field__error"' in page.content.decode()
    assert user("anna").email == ""


def test_two_accounts_may_not_share_a_verified_address(client):
    sign_up(client, "anna", "same@example.org")
    client.logout()
    sign_up(client, "boris", "SAME@example.org")
    client.logout()
    anna_link, boris_link = (link_in(message) for message in mail.outbox)

    assert client.get(anna_link).status_code == 200
    page = client.get(boris_link)

    assert page.status_code == 400
    assert "already verified for another account" in page.content.decode()
    assert email_verified(user("anna")) and not email_verified(user("boris"))


def test_settings_need_a_login(client):
    response = client.get(reverse("accounts:settings"))
    assert response.status_code == 302 and response.url.startswith(reverse("accounts:login"))
