"""Sentence-pair checks of bitext rows (bitext/langcheck.py, extract.check_rows)."""

from __future__ import annotations

import csv
import gzip
import pickle
from collections import Counter

from bitextcrawl.bitext.extract import check_rows
from bitextcrawl.bitext.langcheck import (
    FACTS_KEY,
    SentenceLanguageCheck,
    clear_caches,
    interface_rows,
    is_language_name_pair,
    language_scripts,
    one_language,
    sentence_facts,
    wrong_script,
)
from bitextcrawl.formats.tsv import write_bitext_tsv


def row(s1, s2, l1="en", l2="fr"):
    return {"url_1": "http://s/en", "url_2": f"http://s/{l2}", "sentence_1": s1,
            "sentence_2": s2, "score": 0.9, "lang_1": l1, "lang_2": l2}


def test_untranslated_long_text_fails_short_words_are_not_judged_by_fasttext():
    check = SentenceLanguageCheck()
    english = "The configuration file is read again when the server receives the signal."
    assert check.reason(english, "fr", "en") == "other_lang"
    assert check.reason(english, "en", "fr") is None
    # fastText says Macedonian (0.93) and Italian (0.99): neither is the pair's other
    # language, and one or two words are too few to trust a third one
    assert check.reason("Browser", "en", "fr") is None
    assert check.reason("Non calculé", "fr", "en") is None
    # numbers and dates carry no language
    assert check.reason("2 615 060", "fr", "en") is None


def test_language_names_and_crosswise_rows_are_interface_strings():
    assert is_language_name_pair("English", "Français")
    assert not is_language_name_pair("English", "Anglais")  # a translation: kept
    rows = [row("English", "Français"), row("Home", "Accueil"), row("Contact", "Nous joindre"),
            row("Nous joindre", "Contact"), row("Polish", "Polonais")]
    assert interface_rows(rows) == {0: "language_names", 2: "crosswise", 3: "crosswise"}
    assert not is_language_name_pair("Accueil", "English")   # one side only names one


def test_rows_with_facts_read_in_another_process_are_checked_the_same():
    rows = [row("English", "Français"), row("Home", "Accueil"), row("Contact", "Nous joindre"),
            row("Nous joindre", "Contact"),
            row("The server reads its configuration file again.", "The server reads it."),
            row("Example configuration", "Пример конфигурации", "en", "ru"),
            row("proxy_cache_valid", "fastcgi_pass", "en", "ru")]
    plain_counts, counts = Counter(), Counter()
    plain = check_rows([dict(r) for r in rows], SentenceLanguageCheck(), plain_counts)
    clear_caches()
    # as a bitext pool's worker gets the check, and sends the facts back
    check = pickle.loads(pickle.dumps(SentenceLanguageCheck(other_prob=0.6)))
    assert check.other_prob == 0.6
    assert pickle.loads(pickle.dumps(check)) is check    # one per process: readings shared
    with_facts = [{**r, FACTS_KEY: pickle.loads(pickle.dumps(
        check.facts(r["sentence_1"], r["sentence_2"])))} for r in rows]
    kept = check_rows(with_facts, SentenceLanguageCheck(), counts)
    assert kept == plain and counts == plain_counts and plain_counts
    assert not any(FACTS_KEY in r for r in kept)


def test_a_sentence_pairs_facts_are_made_once_and_equal_the_facts_made_afresh(monkeypatch):
    """SentenceLanguageCheck.facts keeps each pair's facts (menus recur on every page
    pair): what it returns, kept or not, is what sentence_facts makes of the pair."""
    import bitextcrawl.bitext.langcheck as langcheck

    monkeypatch.setattr(langcheck, "FACTS_KEPT", 3)
    check = SentenceLanguageCheck()
    pairs = [("Home", "Accueil"), ("English", "Français"),
             ("The server reads its configuration file again.", "Le serveur relit sa configuration."),
             ("Home", "Accueil"), ("Example configuration", "Пример конфигурации"),
             ("Home ", "Accueil"), ("2 615 060", "2 615 060"), ("Home", "Accueil")]
    got = [check.facts(a, b) for a, b in pairs]
    fresh = SentenceLanguageCheck()
    assert got == [sentence_facts(a, b, fresh) for a, b in pairs]
    assert got[3] is got[0]                       # kept: made once
    assert got[5] is not got[0] and got[5].key == got[0].key   # another text, its own facts
    assert len(check._facts) <= 3                 # bounded


def test_check_rows_decides_from_the_facts_a_row_carries():
    english = "The configuration file is read again when the server receives the signal."
    rows = [row(english, "Le fichier de configuration est relu quand le serveur reçoit le signal.")]
    check = SentenceLanguageCheck()
    assert len(check_rows([dict(r) for r in rows], check, Counter())) == 1
    facts = check.facts(rows[0]["sentence_1"], rows[0]["sentence_2"])
    forged = facts._replace(reading_1=("fr", 0.99, False))   # "read" as the other language
    counts = Counter()
    assert check_rows([{**rows[0], FACTS_KEY: forged}], check, counts) == []
    assert counts == {"bitext/bitext/dropped/other_lang": 1}


def test_script_of_its_own_decides_where_languages_differ_in_script():
    rows = [row("Example configuration", "Пример конфигурации", "en", "ru"),
            row("proxy_cache_valid", "fastcgi_pass", "en", "ru"),
            row("Syntax: listen", "Синтаксис: listen", "en", "ru")]
    scripts = language_scripts(rows)
    assert wrong_script("fastcgi_pass", scripts["ru"], scripts["en"])
    assert not wrong_script("Синтаксис: listen", scripts["ru"], scripts["en"])
    assert not wrong_script("1.25", scripts["ru"], scripts["en"])
    # English and French share their script: it says nothing
    fr = language_scripts([row("Home page", "Page d'accueil")])
    assert not wrong_script("Home", fr["fr"], fr["en"])
    counts = Counter()
    kept = check_rows(rows, SentenceLanguageCheck(), counts)
    assert [r["sentence_2"] for r in kept] == ["Пример конфигурации", "Синтаксис: listen"]
    assert counts == {"bitext/bitext/dropped/script": 1}


def test_tsv_reads_by_bitextor_column_names(tmp_path):
    rows = [row("Hello world.", "Bonjour le monde."), row("Home", "Accueil")]
    for name in ("bitext.tsv", "bitext.tsv.gz"):
        path = tmp_path / name
        assert write_bitext_tsv(path, rows) == 2
        opener = gzip.open if name.endswith(".gz") else open
        with opener(path, "rt", encoding="utf-8", newline="") as fh:
            got = list(csv.DictReader(fh, delimiter="\t", quoting=csv.QUOTE_NONE))
        assert [(r["src_text"], r["trg_text"], r["src_lang"], r["trg_lang"]) for r in got] == \
            [("Hello world.", "Bonjour le monde.", "en", "fr"), ("Home", "Accueil", "en", "fr")]
        assert got[0]["src_url"] == "http://s/en" and got[0]["aligner_score"] == "0.9000"
    first = (tmp_path / "bitext.tsv.gz").read_bytes()
    write_bitext_tsv(tmp_path / "bitext.tsv.gz", rows)
    assert (tmp_path / "bitext.tsv.gz").read_bytes() == first  # no time in the gzip header


def test_text_scripts_of_ascii_text_are_counted_as_latin_letters():
    """ASCII texts take a shortcut (their letters are Latin); the counts are the ones
    of the letter-by-letter reading."""
    from bitextcrawl.bitext.langcheck import script, text_scripts

    clear_caches()
    for text in ("", "1.25 -- 42!", "Syntax: proxy_pass http://up;", "Zz\tAa\n",
                 "Синтаксис: listen", "naïve café", "".join(map(chr, range(128)))):
        assert text_scripts(text) == Counter(map(script, filter(str.isalpha, text)))


def test_a_sentence_pair_is_judged_once_and_its_copies_counted_with_it():
    """RowChecks.add: a row whose (stripped) sentence pair came before shares that row's
    verdict; checked_rows counts its drop with the first row's."""
    from bitextcrawl.bitext.extract import checked_rows
    from bitextcrawl.bitext.langcheck import RowChecks

    rows = [row("Home", "Accueil"), row("Accueil", "Home"), row(" Home ", "Accueil"),
            row("Accueil", "Home"), row("Accueil", "Home"), row("Hello world.", "Bonjour.")]
    checks = RowChecks(SentenceLanguageCheck())
    first = [r for r in rows if checks.add(r)]
    assert [(r["sentence_1"], r["sentence_2"]) for r in first] == \
        [("Home", "Accueil"), ("Accueil", "Home"), ("Hello world.", "Bonjour.")]
    counts = Counter()
    kept = list(checked_rows(first, checks, counts))
    assert [r["sentence_1"] for r in kept] == ["Hello world."]
    # every row of the crosswise pairs counted, copies included, as when each is judged
    assert counts == {"bitext/bitext/dropped/crosswise": 5}
    each = Counter()
    assert check_rows([dict(r) for r in rows], SentenceLanguageCheck(), each) == kept
    assert each == counts


def test_urls_handles_and_identifiers_are_not_read_as_language():
    from bitextcrawl.bitext.langcheck import language_words

    assert language_words("Plus d'informations : https://manned.org/apg.") == \
        "Plus d'informations :"
    assert language_words("Sets the $modern_browser variable, see ngx_http_core.") == \
        "Sets the variable, see"
    check = SentenceLanguageCheck()
    # read whole, the URL makes it English (0.31); its words are French
    assert check.read("Plus d'informations : https://manned.org/apg.")[0] == "fr"


def test_a_block_left_untranslated_is_dropped_one_misread_row_is_kept():
    changelog = ["Tabs: Fixed printing of tab panels in the print preview",
                 "Build: Moved the Travis variables to the Travis settings page",
                 "Menu: Fixed handling of empty AJAX results on slow connections",
                 "Data Ajax: Prevents the caching of nested scripts in the page"]
    translated = ("Les paramètres sont relus quand le serveur reçoit le signal.",
                  "The settings are read again when the server receives the signal.")
    rows = [row(*translated[::-1])]
    # the French page kept the English changelog: each of its lines aligned with
    # another line of the English one
    rows += [row(a, b) for a, b in zip(changelog, changelog[1:])]
    # one row both of whose sides read as English, alone in its page pair
    lone = dict(row("Start Visual Studio Code:", "Inicia Visual Studio Code:", l2="fr"),
                url_1="http://s/en/b", url_2="http://s/fr/b")
    rows.append(lone)
    check = SentenceLanguageCheck()
    assert one_language(check.facts(lone["sentence_1"], lone["sentence_2"]), "en", "fr")
    counts = Counter()
    kept = check_rows(rows, check, counts)
    assert counts["bitext/bitext/dropped/untranslated"] == 3
    assert [r["sentence_1"] for r in kept] == [translated[1], lone["sentence_1"]]


def test_a_language_of_several_scripts_beside_latin_keeps_each_of_them():
    # Japanese rows dense with commands: Latin is half their letters, and each of
    # kanji, hiragana and katakana under a fifth of them
    rows = [row("Use --data @file_name or --data @'-' to read from standard input:",
                "stdin(標準入力) から読み込むには、--data @file_name を使用する:", "en", "ja"),
            row("Fill rows before filling columns:", "列を埋める前に行を埋める:", "en", "ja"),
            row("cc — Command Line Cheatsheets", "cc — コマンドライン早見表", "en", "ja"),
            row("Remove executable rights from the group:",
                "group から executable 権限を削除する:", "en", "ja"),
            row("aws configure --profile profile_name", "aws configure --profile profile_name",
                "en", "ja"),
            row("This command is an alias of gcc.", "このコマンドは gcc のエイリアスです。",
                "en", "ja"),
            row("Manage the AWS CLI settings", "AWS CLI settings", "en", "ja")]
    scripts = language_scripts(rows)
    assert {"CJK", "HIRAGANA", "KATAKANA"} <= scripts["ja"]
    assert scripts["en"] == {"LATIN"}
    assert not wrong_script("列を埋める前に行を埋める:", scripts["ja"], scripts["en"])
    assert wrong_script("AWS CLI settings", scripts["ja"], scripts["en"])


def test_a_side_in_its_own_script_is_not_judged_by_its_english_names():
    from bitextcrawl.bitext.langcheck import in_own_script, text_scripts

    rows = [row("Create a new Amplify app:", "새로운 Amplify 앱 생성:", "en", "ko"),
            row("List all Amplify apps:", "모든 Amplify 앱 나열:", "en", "ko"),
            row("Browse for both VNC and SSH servers:", "VNC 및 SSH 서버 탐색:", "en", "ko"),
            row("Delete an existing Amplify app:", "기존 Amplify 앱 삭제:", "en", "ko"),
            row("Display the help of the command:", "Display the help of the command line tool:",
                "en", "ko")]
    scripts = language_scripts(rows)
    assert in_own_script(text_scripts("새로운 Amplify 앱 생성:"), scripts["ko"], scripts["en"])
    counts = Counter()
    kept = check_rows(rows, SentenceLanguageCheck(), counts)
    assert [r["sentence_1"] for r in kept] == [r["sentence_1"] for r in rows[:4]]
    assert counts == {"bitext/bitext/dropped/script": 1}
