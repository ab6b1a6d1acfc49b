"""direct.py reads the contact manifolds' float table by its own copies of contacts.py's
column offsets (contacts.py sits above it): they must name the same columns."""

from solver import contacts, direct


def test_direct_reads_the_manifold_columns_contacts_writes():
    assert direct.CONTACT_ARMS == contacts.ARMS
    assert direct.CONTACT_ROLLS == contacts.ROLLS
