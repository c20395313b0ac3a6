"""spyre_mlir.verify_diagnostics: MLIR's expected-* annotations, as a library."""

from __future__ import annotations

import pytest

from spyre_mlir.diagnostics import Diagnostic, Location
from spyre_mlir.verify_diagnostics import EXPECTED, check_expectations, parse_expectations

F = "k.mlir"


def at(line: int, col: int = 3) -> Location:
    return Location(F, line, col)


def check(text: str, *diagnostics: Diagnostic, **kwargs) -> list[str]:
    return [p.message for p in check_expectations(text, F, list(diagnostics), **kwargs)]


def test_plain_annotation_is_a_substring_on_its_line():
    text = "%a = op  // expected-error {{bad thing}}\n"
    assert check(text, Diagnostic("error", "a bad thing happened", at(1))) == []
    assert check(text, Diagnostic("error", "a bad thing happened", at(2))) == [
        "unexpected error: a bad thing happened",
        'expected error "bad thing" was not produced',
    ]


def test_offsets_and_the_nearest_plain_line():
    text = "\n".join([
        "// expected-error @+3 {{three below}}",  # 1
        "// expected-warning @below {{below}}",  # 2: skips line 3 (an annotation line)
        "// expected-note @-2 {{never}}",  # 3 -> line 1
        "%x = op",  # 4
        "// expected-remark @above {{above}}",  # 5 -> line 4
    ])
    exps, problems = parse_expectations(text, F)
    assert problems == []
    assert [(e.severity, e.line) for e in exps] == [("error", 4), ("warning", 4), ("note", 1), ("remark", 4)]


def test_line_offset_of_a_split_chunk():
    (e,), _ = parse_expectations("\n// expected-error @+1 {{x}}\n%x = op\n", F, line_offset=40)
    assert (e.line, e.at.line, e.at.col) == (43, 42, 4)


def test_regex_form_mixes_literal_text_and_regex_pieces():
    text = "// expected-error-re @+1 {{op #{{[0-9]+}} has (a) {{[[:alpha:]]+}} type}}\n%x = op\n"
    assert check(text, Diagnostic("error", "'x' op #12 has (a) bad type", at(2))) == []
    # the text outside {{ }} is literal: "(a)" is not a regex group here
    assert check(text, Diagnostic("error", "op #12 has a bad type", at(2)))[-1].startswith("expected error")
    # without -re, {{ }} inside the message is plain text
    assert check("%x = op // expected-error {{#{{[0-9]+}}}}\n", Diagnostic("error", "#{{[0-9]+}}", at(1))) == []


def test_unknown_location():
    text = "// expected-error @unknown {{no location}}\n"
    assert check(text, Diagnostic("error", "something with no location", None)) == []
    assert check(text, Diagnostic("error", "something with no location", at(1))) == [
        "unexpected error: something with no location",
        'expected error "no location" was not produced',
    ]


def test_notes_are_matched_on_their_own():
    text = "%x = op // expected-error {{bad}}\n%y = op // expected-note {{here}}\n"
    d = Diagnostic("error", "bad", at(1), [Diagnostic("note", "defined here", at(2))])
    assert check(text, d) == []
    d = Diagnostic("error", "bad", at(1), [Diagnostic("note", "not the place", at(2))])
    assert check(text, d) == ["unexpected note: not the place", 'expected note "here" was not produced']


def test_near_miss_and_only_expected():
    text = "%x = op // expected-error {{bad}}\n"
    d = Diagnostic("warning", "bad", at(1))
    assert check(text, d) == [
        "'warning' diagnostic emitted when expecting a 'error'",
        'expected error "bad" was not produced',
    ]
    assert check(text, d, Diagnostic("error", "bad", at(1)), Diagnostic("remark", "x", at(9)), only_expected=True) == []


def test_identical_annotations_are_used_in_order_and_one_absorbs_repeats():
    two = "%x = op // expected-error {{bad}}\n// expected-error @-1 {{bad}}\n"
    assert check(two, Diagnostic("error", "bad", at(1)), Diagnostic("error", "bad", at(1))) == []
    one = "%x = op // expected-error {{bad}}\n"
    assert check(one, Diagnostic("error", "bad", at(1)), Diagnostic("error", "bad", at(1))) == []  # as in MLIR


def test_annotations_in_string_literals_do_not_count():
    text = '%x = op {a = "// expected-error {{x}}", b = "expected-error {{y}}", c = "\\" // expected-error {{z}}"}\n'
    assert parse_expectations(text, F) == ([], [])
    # ... but a comment after the string does
    (e,), _ = parse_expectations('%x = op {a = "//"} // expected-error {{real}}\n', F)
    assert e.message == "real"


def test_prose_about_other_words_is_not_an_annotation():
    assert parse_expectations("// the expected-output and unexpected-error words\n", F) == ([], [])


@pytest.mark.parametrize(
    "line, message",
    [
        ("// expected-foo {{x}}", "unknown annotation 'expected-foo'"),
        ("// expected-errors {{x}}", "unknown annotation 'expected-errors'"),
        ("// expected-error @bogus {{x}}", "unknown location '@bogus'"),
        ("// expected-error @+ {{x}}", "unknown location '@+'"),
        ("// expected-error-2 {{x}}", "no count form"),
        ("// expected-warning-10 {{x}}", "no count form"),
        ("// expected-error {{x", "unterminated '{{'"),
        ("// expected-error {{x}} and more", "text after the closing '}}'"),
        ("// expected-error", "must be followed by {{message}}"),
        ("// expected-error: x", "must be followed by {{message}}"),
        ("// expected-error-re {{a {{[}}}}", "invalid regex '['"),
        ("// expected-error-re {{a {{b}}", "found start of regex with no end '}}'"),
    ],
)
def test_malformed_annotations_are_errors(line, message):
    exps, problems = parse_expectations(line + "\n", F)
    assert exps == []
    assert len(problems) == 1 and message in problems[0].message, problems
    assert problems[0].location == Location(F, 1, 4)
    assert message in check(line + "\n")[0]  # and check_expectations reports them


def test_the_regex_is_mlirs():
    m = EXPECTED.match("expected-error-re@+2 {{a {{b}} c}}")
    assert m and (m["sev"], m["re"], m["where"], m["msg"]) == ("error", "-re", "+2", "a {{b}} c")
    assert EXPECTED.match("expected-error {{x}} trailing") is None
