"""The package's doctests (its docstrings' examples), against the installed module."""

import doctest

import timewarp


def test_doctests():
    flags = doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE | doctest.IGNORE_EXCEPTION_DETAIL
    result = doctest.testmod(timewarp, extraglobs={"timewarp": timewarp}, optionflags=flags)
    assert result.attempted > 5
    assert result.failed == 0
