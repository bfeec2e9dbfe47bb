"""Synthetic bilingual websites with known gold, for the demo, integration tests and benchmarks.

``generate_site(SiteSpec(...), port)`` builds a whole website in memory: every resource
(HTML pages, ``robots.txt``, redirects, bad input) keyed by its absolute URL, plus the
gold the crawler is scored against: which page is the translation of which
(``gold_pairs``), the language of every page (``page_langs``) and, per gold pair, the
aligned sentence pairs of its main text (``sentence_gold``). A loopback server answers
requests with ``GeneratedSite.lookup(host_header, path_and_query)``.

How the text is made
    A small bilingual lexicon written here (nouns with French and German gender,
    adjectives, verbs, adverbs, places, people, counted nouns) and ~36 sentence
    templates written once per language. A page is first *planned* language-independently
    (which template, which nouns/verbs/numbers fill it) and then *rendered* in each
    language, so the French page is a real sentence-by-sentence translation of the English
    one: same sentences in the same order, with the natural length differences of the
    languages (French ~15% longer in characters) and the odd connective a translator
    adds. Each page draws its words mostly from its own small topic pool, so different
    pages share little vocabulary and do not look parallel. Numbers, years, dates, prices,
    product codes and phone numbers are shared by both versions (language-independent
    evidence). Only en, fr and de are supported (``SUPPORTED_LANGS``).

The site
    One home page per language, section index pages with pagination, articles linking to
    related articles in the same language, an about page, boilerplate (header, menu,
    breadcrumb, footer) in the page's language, a language toggle to the counterpart
    (``language_switch``), optional ``<link rel="alternate" hreflang>`` (``hreflang_alternates``),
    untranslated pages, third-language pages reachable from the home pages, pages linked
    from nowhere (``hidden_fraction``), a ``/private/`` area forbidden by ``robots.txt`` and
    linked from the home page, and optionally a set of bad resources (``BAD_RESOURCES``).
    Every page that is not hidden is reachable by links from ``start_url``.

What the gold contains
    ``gold_pairs`` holds every translated pair of HTML pages: the ``n_pairs`` article pairs
    plus the navigation pairs (home pages, about pages, section index pages with the same
    page number in both languages). ``page_kinds`` tells them apart. ``page_langs`` covers
    every generated HTML page, including hidden, third-language and robots-forbidden
    ``/private/`` pages (see ``robots_disallowed``), but not the bad resources
    (``bad_urls``).

URL schemes (``SiteSpec.scheme``)
    prefix     /en/news/harbour-opens.html       <-> /fr/news/harbour-opens.html
    subdomain  en.HOST/news/harbour-opens.html   <-> fr.HOST/news/harbour-opens.html
    suffix     /news/harbour-opens_en.html       <-> /news/harbour-opens_fr.html
    query      /page.php?id=42&lang=en           <-> /page.php?id=42&lang=fr
    opaque     /node/5318807.html                <-> /node/2290415.html (no relation)
    mixed      sections cycle through prefix, translated slugs sharing a numeric id
               (/en/news/42-harbour-opens <-> /fr/actualites/42-ouverture-du-port),
               suffix, query and opaque; home and about pages use prefix.

Speed: pure Python, deterministic per seed. About 0.7 s per 1,000 pairs; 20,000 pairs
(44,000 pages, 160 MB of HTML held in memory) take ~15 s.
"""

from __future__ import annotations

import gc
import html
import random
import re
import string
import unicodedata
from dataclasses import dataclass, field
from functools import lru_cache
from urllib.parse import parse_qsl, urlencode, urlsplit

__all__ = [
    "BAD_RESOURCES",
    "SCHEMES",
    "SUPPORTED_LANGS",
    "GeneratedSite",
    "Resource",
    "SiteSpec",
    "generate_site",
]

SCHEMES = ("prefix", "subdomain", "suffix", "query", "opaque", "mixed")
SUPPORTED_LANGS = ("en", "fr", "de")

# Bad input, added when ``SiteSpec.bad_pages`` is true. Key -> path on the langs[0] host;
# all are linked from the langs[0] home page (GeneratedSite.bad_urls has the absolute URLs).
BAD_RESOURCES = {
    "binary": "/legacy/brochure.html",            # random bytes with NULs served as text/html
    "latin1_as_utf8": "/legacy/ancien-article.html",  # header says utf-8, body is latin-1 French
    "cp1252_undeclared": "/legacy/communique.html",   # no charset anywhere, windows-1252 French
    "truncated": "/legacy/truncated.html",        # HTML cut in the middle of a tag
    "huge": "/legacy/full-archive.html",          # > 6 MB of text/html
    "redirect_loop": "/loop/a",                   # 302 -> /loop/b, which 302s back to /loop/a
    "redirect_loop_b": "/loop/b",
    "not_found": "/legacy/missing.html",          # linked, never served: lookup() gives None (404)
    "server_error": "/legacy/error.html",         # status 500
    "empty": "/legacy/empty.html",                # status 200, empty body
    "trap": "/cal/",                              # calendar: /cal/(next/)* links one level deeper,
                                                  # built lazily in lookup(), without end
}

_HTML_UTF8 = {"Content-Type": "text/html; charset=utf-8"}
_TRAP_RE = re.compile(r"^/cal/(?:next/)*$")


# ---------------------------------------------------------------------------------------
# Public data types
# ---------------------------------------------------------------------------------------

@dataclass
class SiteSpec:
    scheme: str = "prefix"
    n_pairs: int = 60                   # translated article pairs
    langs: tuple = ("en", "fr")
    third_lang: str | None = "de"       # some pages in a third language, None for none
    n_third: int = 8
    untranslated_fraction: float = 0.1  # extra articles in langs[0] or langs[1], no translation
    hidden_fraction: float = 0.0        # langs[1] article pages linked from nowhere, but served
    language_switch: bool = True        # <a hreflang=".." href="counterpart">Français</a>
    hreflang_alternates: bool = False   # <link rel="alternate" hreflang=".."> in <head>
    bad_pages: bool = False             # add BAD_RESOURCES, linked from the langs[0] home page
    anchors: bool = True                # years, dates, prices, codes, names, places in the text;
                                        # False leaves only words that translate
    host: str = "demo.localhost"
    seed: int = 0


@dataclass
class Resource:
    status: int = 200
    headers: dict[str, str] = field(default_factory=dict)
    body: bytes = b""


@dataclass(repr=False, eq=False)
class GeneratedSite:
    spec: SiteSpec
    port: int
    resources: dict[str, Resource]       # absolute URL "http://HOST:PORT/path?query" -> resource
    start_url: str                       # home page of langs[0]
    gold_pairs: list[tuple[str, str]]    # (url in langs[0], url in langs[1])
    page_langs: dict[str, str]           # every generated HTML page -> its language
    sentence_gold: dict[tuple[str, str], list[tuple[str, str]]]  # per gold pair, main-text pairs
    hidden_urls: set[str]                # langs[1] pages linked from nowhere
    robots_disallowed: list[str]         # URLs robots.txt forbids (they are served and linked)
    bad_urls: dict[str, str] = field(default_factory=dict)     # BAD_RESOURCES key -> URL
    page_kinds: dict[str, str] = field(default_factory=dict)   # HTML page -> home, index, about,
                                                               # article, untranslated, private
    hosts: list[str] = field(default_factory=list)             # "host:port" served

    def lookup(self, host_header: str, path_and_query: str) -> Resource | None:
        """The resource a server should answer with; None means 404.

        ``host_header`` is the HTTP Host header (the port is optional); the query string may
        come with its parameters in any order.
        """
        host = (host_header or "").strip().lower()
        if not host:
            host = urlsplit(self.start_url).netloc
        elif ":" not in host:
            host = f"{host}:{self.port}"
        path_and_query = (path_and_query or "/").split("#", 1)[0] or "/"
        if not path_and_query.startswith("/"):
            path_and_query = "/" + path_and_query
        url = f"http://{host}{path_and_query}"
        res = self.resources.get(url)
        if res is not None:
            return res
        res = self._canonical_index().get(_canonical(url))
        if res is not None:
            return res
        # The calendar trap has no end, so its pages are made on demand.
        if self.spec.bad_pages and host == self._bad_host():
            path = path_and_query.split("?", 1)[0]
            if _TRAP_RE.match(path):
                return _trap_page(f"http://{host}", path)
        return None

    def __repr__(self) -> str:
        return (f"GeneratedSite(scheme={self.spec.scheme!r}, start_url={self.start_url!r}, "
                f"{len(self.page_langs)} pages, {len(self.gold_pairs)} gold pairs, "
                f"{len(self.hidden_urls)} hidden)")

    def write_gold(self, path) -> None:
        """Write ``url_1<TAB>url_2`` lines (the gold file format of ``scrapy evaluate``)."""
        with open(path, "w", encoding="utf-8") as f:
            for u1, u2 in self.gold_pairs:
                f.write(f"{u1}\t{u2}\n")

    def _bad_host(self) -> str:
        return urlsplit(self.start_url).netloc

    def _canonical_index(self) -> dict[str, Resource]:
        # Built on the first miss only: exact keys serve nearly every request.
        idx = self.__dict__.get("_canon_idx")
        if idx is None:
            idx = {_canonical(u): r for u, r in self.resources.items()}
            self.__dict__["_canon_idx"] = idx
        return idx


def _canonical(url: str) -> str:
    parts = urlsplit(url)
    query = urlencode(sorted(parse_qsl(parts.query, keep_blank_values=True)))
    return f"{parts.netloc.lower()}{parts.path or '/'}?{query}"


# ---------------------------------------------------------------------------------------
# Lexicon. Written for this module. Nouns: "en | fr gender | de gender", "*" marks nouns
# that can act (subjects of transitive verbs), so that sentences stay roughly sensible.
# ---------------------------------------------------------------------------------------

_NOUNS_TXT = """
city* | ville f | Stadt f
harbour | port m | Hafen m
bridge | pont m | Brücke f
museum* | musée m | Museum n
library* | bibliothèque f | Bibliothek f
school* | école f | Schule f
hospital* | hôpital m | Krankenhaus n
station | gare f | Bahnhof m
market | marché m | Markt m
garden | jardin m | Garten m
park | parc m | Park m
church | église f | Kirche f
castle | château m | Schloss n
river | rivière f | Fluss m
lake | lac m | See m
forest | forêt f | Wald m
mountain | montagne f | Berg m
island | île f | Insel f
village* | village m | Dorf n
street | rue f | Straße f
house | maison f | Haus n
building | bâtiment m | Gebäude n
tower | tour f | Turm m
theatre* | théâtre m | Theater n
cinema | cinéma m | Kino n
hotel | hôtel m | Hotel n
shop | boutique f | Geschäft n
company* | entreprise f | Unternehmen n
factory | usine f | Fabrik f
office | bureau m | Büro n
government* | gouvernement m | Regierung f
council* | conseil m | Rat m
mayor* | maire m | Bürgermeister m
minister* | ministre m | Minister m
director* | directeur m | Direktor m
teacher* | professeur m | Lehrer m
doctor* | médecin m | Arzt m
farmer* | agriculteur m | Landwirt m
artist* | artiste m | Künstler m
writer* | écrivain m | Schriftsteller m
pupil* | élève m | Schüler m
child* | enfant m | Kind n
family* | famille f | Familie f
friend* | ami m | Freund m
visitor* | visiteur m | Besucher m
buyer* | acheteur m | Käufer m
worker* | ouvrier m | Arbeiter m
association* | association f | Verband m
club* | club m | Verein m
university* | université f | Universität f
festival | festival m | Festival n
concert | concert m | Konzert n
exhibition | exposition f | Ausstellung f
meeting | réunion f | Sitzung f
project | projet m | Projekt n
plan | plan m | Plan m
report | rapport m | Bericht m
study | étude f | Studie f
law | loi f | Gesetz n
rule | règle f | Regel f
price | prix m | Preis m
budget | budget m | Haushalt m
tax | impôt m | Steuer f
job | emploi m | Arbeitsplatz m
work | travail m | Arbeit f
water | eau f | Wasser n
energy | énergie f | Energie f
electricity | électricité f | Strom m
light | lumière f | Licht n
weather | météo f | Wetter n
rain | pluie f | Regen m
snow | neige f | Schnee m
wind | vent m | Wind m
sun | soleil m | Sonne f
season | saison f | Saison f
summer | été m | Sommer m
winter | hiver m | Winter m
morning | matin m | Morgen m
evening | soir m | Abend m
week | semaine f | Woche f
year | année f | Jahr n
history | histoire f | Geschichte f
culture | culture f | Kultur f
music | musique f | Musik f
art | art m | Kunst f
book | livre m | Buch n
newspaper* | journal m | Zeitung f
film | film m | Film m
picture | tableau m | Bild n
photo | photo f | Foto n
game | jeu m | Spiel n
sport | sport m | Sport m
race | course f | Rennen n
bicycle | vélo m | Fahrrad n
car | voiture f | Auto n
bus | bus m | Bus m
train | train m | Zug m
boat | bateau m | Boot n
ship | navire m | Schiff n
plane | avion m | Flugzeug n
airport | aéroport m | Flughafen m
ticket | billet m | Fahrkarte f
journey | voyage m | Reise f
food | nourriture f | Essen n
bread | pain m | Brot n
cheese | fromage m | Käse m
wine | vin m | Wein m
coffee | café m | Kaffee m
fruit | fruit m | Obst n
fish | poisson m | Fisch m
meal | repas m | Mahlzeit f
kitchen | cuisine f | Küche f
recipe | recette f | Rezept n
product | produit m | Produkt n
machine | machine f | Maschine f
tool | outil m | Werkzeug n
computer | ordinateur m | Computer m
phone | téléphone m | Telefon n
network | réseau m | Netz n
software | logiciel m | Software f
website | site m | Website f
service | service m | Dienst m
system | système m | System n
method | méthode f | Methode f
question | question f | Frage f
answer | réponse f | Antwort f
problem | problème m | Problem n
solution | solution f | Lösung f
idea | idée f | Idee f
decision | décision f | Entscheidung f
change | changement m | Änderung f
growth | croissance f | Wachstum n
health | santé f | Gesundheit f
environment | environnement m | Umwelt f
nature | nature f | Natur f
animal | animal m | Tier n
bird | oiseau m | Vogel m
tree | arbre m | Baum m
flower | fleur f | Blume f
field | champ m | Feld n
farm | ferme f | Bauernhof m
coast | côte f | Küste f
beach | plage f | Strand m
region* | région f | Region f
country* | pays m | Land n
world | monde m | Welt f
future | avenir m | Zukunft f
door | porte f | Tür f
window | fenêtre f | Fenster n
hall | salle f | Saal m
wall | mur m | Mauer f
roof | toit m | Dach n
map | carte f | Karte f
letter | lettre f | Brief m
gift | cadeau m | Geschenk n
award | récompense f | Auszeichnung f
competition | concours m | Wettbewerb m
course | cours m | Kurs m
language | langue f | Sprache f
word | mot m | Wort n
story | récit m | Erzählung f
voice | voix f | Stimme f
song | chanson f | Lied n
dance | danse f | Tanz m
group* | groupe m | Gruppe f
member* | membre m | Mitglied n
manager* | dirigeant m | Leiter m
police* | police f | Polizei f
fire | incendie m | Brand m
storm | tempête f | Sturm m
flood | inondation f | Hochwasser n
renovation | rénovation f | Renovierung f
construction | chantier m | Bau m
opening | ouverture f | Eröffnung f
visit | visite f | Besuch m
programme | programme m | Programm n
timetable | horaire m | Fahrplan m
collection | collection f | Sammlung f
survey | enquête f | Umfrage f
agreement | accord m | Vereinbarung f
contract | contrat m | Vertrag m
partner* | partenaire m | Partner m
bank* | banque f | Bank f
money | argent m | Geld n
"""

# "en | fr_m/fr_f[/fr_m_before_vowel] [pre] | de_predicative[/de_attributive_stem]"
# "pre" marks French adjectives placed before the noun.
_ADJS_TXT = """
new | nouveau/nouvelle/nouvel pre | neu
old | vieux/vieille/vieil pre | alt
big | grand/grande pre | groß
small | petit/petite pre | klein
beautiful | beau/belle/bel pre | schön
young | jeune/jeune pre | jung
good | bon/bonne pre | gut
modern | moderne/moderne | modern
historic | historique/historique | historisch
important | important/importante | wichtig
famous | célèbre/célèbre | berühmt
quiet | calme/calme | ruhig
lively | animé/animée | lebendig
local | local/locale | örtlich
public | public/publique | öffentlich
private | privé/privée | privat
free | gratuit/gratuite | kostenlos
expensive | cher/chère | teuer/teur
affordable | abordable/abordable | günstig
long | long/longue | lang
short | court/courte | kurz
high | haut/haute | hoch/hoh
green | vert/verte | grün
white | blanc/blanche | weiß
red | rouge/rouge | rot
blue | bleu/bleue | blau
dark | sombre/sombre | dunkel/dunkl
bright | lumineux/lumineuse | hell
warm | chaud/chaude | warm
cold | froid/froide | kalt
strong | fort/forte | stark
simple | simple/simple | einfach
difficult | difficile/difficile | schwierig
safe | sûr/sûre | sicher
clean | propre/propre | sauber
open | ouvert/ouverte | geöffnet
closed | fermé/fermée | geschlossen
complete | complet/complète | vollständig
regional | régional/régionale | regional
national | national/nationale | national
international | international/internationale | international
European | européen/européenne | europäisch
natural | naturel/naturelle | natürlich
traditional | traditionnel/traditionnelle | traditionell
popular | populaire/populaire | beliebt
unusual | insolite/insolite | ungewöhnlich
rich | riche/riche | reich
proud | fier/fière | stolz
useful | utile/utile | nützlich
necessary | nécessaire/nécessaire | notwendig
possible | possible/possible | möglich
fast | rapide/rapide | schnell
slow | lent/lente | langsam
fresh | frais/fraîche | frisch
delicious | délicieux/délicieuse | köstlich
healthy | sain/saine | gesund
sustainable | durable/durable | nachhaltig
digital | numérique/numérique | digital
electric | électrique/électrique | elektrisch
renovated | rénové/rénovée | renoviert
impressive | impressionnant/impressionnante | beeindruckend
pleasant | agréable/agréable | angenehm
comfortable | confortable/confortable | bequem
successful | réussi/réussie | erfolgreich
"""

# "en base/3sg/past/participle | fr infinitive/3sg/participle/future | de infinitive/3sg/participle"
# Only verbs whose German form is not separable and takes "haben" and an accusative object.
_VERBS_TXT = """
open/opens/opened/opened | ouvrir/ouvre/ouvert/ouvrira | öffnen/öffnet/geöffnet
build/builds/built/built | construire/construit/construit/construira | bauen/baut/gebaut
visit/visits/visited/visited | visiter/visite/visité/visitera | besuchen/besucht/besucht
support/supports/supported/supported | soutenir/soutient/soutenu/soutiendra | unterstützen/unterstützt/unterstützt
present/presents/presented/presented | présenter/présente/présenté/présentera | präsentieren/präsentiert/präsentiert
organise/organises/organised/organised | organiser/organise/organisé/organisera | organisieren/organisiert/organisiert
improve/improves/improved/improved | améliorer/améliore/amélioré/améliorera | verbessern/verbessert/verbessert
protect/protects/protected/protected | protéger/protège/protégé/protégera | schützen/schützt/geschützt
finance/finances/financed/financed | financer/finance/financé/financera | finanzieren/finanziert/finanziert
renovate/renovates/renovated/renovated | rénover/rénove/rénové/rénovera | renovieren/renoviert/renoviert
describe/describes/described/described | décrire/décrit/décrit/décrira | beschreiben/beschreibt/beschrieben
discover/discovers/discovered/discovered | découvrir/découvre/découvert/découvrira | entdecken/entdeckt/entdeckt
choose/chooses/chose/chosen | choisir/choisit/choisi/choisira | wählen/wählt/gewählt
buy/buys/bought/bought | acheter/achète/acheté/achètera | kaufen/kauft/gekauft
sell/sells/sold/sold | vendre/vend/vendu/vendra | verkaufen/verkauft/verkauft
welcome/welcomes/welcomed/welcomed | accueillir/accueille/accueilli/accueillera | empfangen/empfängt/empfangen
clean/cleans/cleaned/cleaned | nettoyer/nettoie/nettoyé/nettoiera | reinigen/reinigt/gereinigt
close/closes/closed/closed | fermer/ferme/fermé/fermera | schließen/schließt/geschlossen
replace/replaces/replaced/replaced | remplacer/remplace/remplacé/remplacera | ersetzen/ersetzt/ersetzt
test/tests/tested/tested | tester/teste/testé/testera | testen/testet/getestet
develop/develops/developed/developed | développer/développe/développé/développera | entwickeln/entwickelt/entwickelt
plan/plans/planned/planned | prévoir/prévoit/prévu/prévoira | planen/plant/geplant
celebrate/celebrates/celebrated/celebrated | célébrer/célèbre/célébré/célébrera | feiern/feiert/gefeiert
publish/publishes/published/published | publier/publie/publié/publiera | veröffentlichen/veröffentlicht/veröffentlicht
explain/explains/explained/explained | expliquer/explique/expliqué/expliquera | erklären/erklärt/erklärt
change/changes/changed/changed | modifier/modifie/modifié/modifiera | ändern/ändert/geändert
manage/manages/managed/managed | gérer/gère/géré/gérera | verwalten/verwaltet/verwaltet
repair/repairs/repaired/repaired | réparer/répare/réparé/réparera | reparieren/repariert/repariert
examine/examines/examined/examined | examiner/examine/examiné/examinera | prüfen/prüft/geprüft
reduce/reduces/reduced/reduced | réduire/réduit/réduit/réduira | senken/senkt/gesenkt
increase/increases/increased/increased | augmenter/augmente/augmenté/augmentera | erhöhen/erhöht/erhöht
use/uses/used/used | utiliser/utilise/utilisé/utilisera | nutzen/nutzt/genutzt
find/finds/found/found | trouver/trouve/trouvé/trouvera | finden/findet/gefunden
show/shows/showed/shown | montrer/montre/montré/montrera | zeigen/zeigt/gezeigt
love/loves/loved/loved | adorer/adore/adoré/adorera | lieben/liebt/geliebt
paint/paints/painted/painted | peindre/peint/peint/peindra | malen/malt/gemalt
connect/connects/connected/connected | relier/relie/relié/reliera | verbinden/verbindet/verbunden
cross/crosses/crossed/crossed | traverser/traverse/traversé/traversera | überqueren/überquert/überquert
defend/defends/defended/defended | défendre/défend/défendu/défendra | verteidigen/verteidigt/verteidigt
honour/honours/honoured/honoured | honorer/honore/honoré/honorera | ehren/ehrt/geehrt
watch/watches/watched/watched | observer/observe/observé/observera | beobachten/beobachtet/beobachtet
count/counts/counted/counted | compter/compte/compté/comptera | zählen/zählt/gezählt
sign/signs/signed/signed | signer/signe/signé/signera | unterschreiben/unterschreibt/unterschrieben
launch/launches/launched/launched | lancer/lance/lancé/lancera | starten/startet/gestartet
expand/expands/expanded/expanded | agrandir/agrandit/agrandi/agrandira | erweitern/erweitert/erweitert
restore/restores/restored/restored | restaurer/restaure/restauré/restaurera | restaurieren/restauriert/restauriert
recommend/recommends/recommended/recommended | recommander/recommande/recommandé/recommandera | empfehlen/empfiehlt/empfohlen
"""

# Counted nouns: "en sg/pl | fr sg/pl gender | de sg/pl | category".
_COUNTED_TXT = """
visitor/visitors | visiteur/visiteurs m | Besucher/Besucher | people
resident/residents | habitant/habitants m | Einwohner/Einwohner | people
pupil/pupils | élève/élèves m | Schüler/Schüler | people
participant/participants | participant/participants m | Teilnehmer/Teilnehmer | people
volunteer/volunteers | bénévole/bénévoles m | Freiwilliger/Freiwillige | people
spectator/spectators | spectateur/spectateurs m | Zuschauer/Zuschauer | people
tourist/tourists | touriste/touristes m | Tourist/Touristen | people
seat/seats | place/places f | Sitzplatz/Sitzplätze | things
room/rooms | chambre/chambres f | Zimmer/Zimmer | things
tree/trees | arbre/arbres m | Baum/Bäume | things
book/books | livre/livres m | Buch/Bücher | things
bicycle/bicycles | vélo/vélos m | Fahrrad/Fahrräder | things
painting/paintings | tableau/tableaux m | Gemälde/Gemälde | things
photograph/photographs | photographie/photographies f | Fotografie/Fotografien | things
apartment/apartments | logement/logements m | Wohnung/Wohnungen | things
boat/boats | bateau/bateaux m | Boot/Boote | things
parking space/parking spaces | place de parking/places de parking f | Parkplatz/Parkplätze | things
job/jobs | emploi/emplois m | Arbeitsplatz/Arbeitsplätze | jobs
position/positions | poste/postes m | Stelle/Stellen | jobs
"""

_ADVERBS_TXT = """
today | aujourd'hui | heute
tomorrow | demain | morgen
again | à nouveau | wieder
every year | chaque année | jedes Jahr
this week | cette semaine | diese Woche
next month | le mois prochain | nächsten Monat
this summer | cet été | diesen Sommer
every morning | chaque matin | jeden Morgen
at the weekend | le week-end | am Wochenende
next year | l'année prochaine | nächstes Jahr
every evening | chaque soir | jeden Abend
this autumn | cet automne | diesen Herbst
regularly | régulièrement | regelmäßig
once again | une fois de plus | noch einmal
"""

_SEASONS = (("in summer", "en été", "im Sommer"), ("in winter", "en hiver", "im Winter"),
            ("in autumn", "en automne", "im Herbst"), ("in spring", "au printemps", "im Frühling"))

_PLACES_TXT = """
Lyon | Lyon | Lyon
Nantes | Nantes | Nantes
Bordeaux | Bordeaux | Bordeaux
Marseille | Marseille | Marseille
Lille | Lille | Lille
Strasbourg | Strasbourg | Straßburg
Geneva | Genève | Genf
Brussels | Bruxelles | Brüssel
Vienna | Vienne | Wien
Munich | Munich | München
Cologne | Cologne | Köln
Venice | Venise | Venedig
Rome | Rome | Rom
Lisbon | Lisbonne | Lissabon
Florence | Florence | Florenz
Basel | Bâle | Basel
Antwerp | Anvers | Antwerpen
Barcelona | Barcelone | Barcelona
London | Londres | London
Edinburgh | Édimbourg | Edinburgh
Zurich | Zurich | Zürich
Hamburg | Hambourg | Hamburg
Grenoble | Grenoble | Grenoble
Toulouse | Toulouse | Toulouse
Rennes | Rennes | Rennes
Dijon | Dijon | Dijon
Annecy | Annecy | Annecy
Avignon | Avignon | Avignon
"""

_FIRST_NAMES = ("Marie f", "Thomas m", "Anna f", "Paul m", "Claire f", "Lukas m", "Sophie f",
                "Jan m", "Elena f", "Pierre m", "Julia f", "Marc m", "Laura f", "David m",
                "Nina f", "Hugo m", "Emma f", "Louis m", "Sara f", "Karim m", "Inès f", "Felix m")
_LAST_NAMES = ("Laurent", "Weber", "Rossi", "Martin", "Dubois", "Schneider", "Bernard", "Novak",
               "García", "Lefèvre", "Fischer", "Girard", "Bianchi", "Moreau", "Keller", "Petit",
               "Wagner", "Fontaine", "Lindqvist", "Haddad", "Meyer", "Roux")

_MONTHS = {
    "en": ("January", "February", "March", "April", "May", "June", "July", "August",
           "September", "October", "November", "December"),
    "fr": ("janvier", "février", "mars", "avril", "mai", "juin", "juillet", "août",
           "septembre", "octobre", "novembre", "décembre"),
    "de": ("Januar", "Februar", "März", "April", "Mai", "Juni", "Juli", "August",
           "September", "Oktober", "November", "Dezember"),
}

# Connectives a translator sometimes adds at the start of a sentence (German would need
# verb-second inversion, so it gets none). Probabilities tuned so that French text is
# ~15% longer than English on average, as in real translations.
_CONNECTIVES = {
    "en": ("Moreover, ", "In addition, ", "Indeed, ", "As a result, "),
    "fr": ("Par ailleurs, ", "En outre, ", "De plus, ", "En effet, ", "Ainsi, ", "Toutefois, "),
    "de": (),
}
_CONNECTIVE_P = {"en": 0.04, "fr": 0.15, "de": 0.0}


class _Noun:
    __slots__ = ("en", "fr", "fr_g", "de", "de_g", "agent")


class _Adj:
    __slots__ = ("en", "fr_m", "fr_f", "fr_mv", "fr_pre", "de", "de_stem")


class _Verb:
    __slots__ = ("en", "fr", "de")  # each a tuple of forms


def _split(line: str) -> list[str]:
    return [p.strip() for p in line.split("|")]


def _lines(text: str):
    return [ln for ln in text.strip().splitlines() if ln.strip()]


def _parse_nouns() -> list[_Noun]:
    out = []
    for ln in _lines(_NOUNS_TXT):
        en, fr, de = _split(ln)
        n = _Noun()
        n.agent = en.endswith("*")
        n.en = en.rstrip("*")
        n.fr, n.fr_g = fr.rsplit(" ", 1)
        n.de, n.de_g = de.rsplit(" ", 1)
        out.append(n)
    return out


def _parse_adjs() -> list[_Adj]:
    out = []
    for ln in _lines(_ADJS_TXT):
        en, fr, de = _split(ln)
        a = _Adj()
        a.en = en
        a.fr_pre = fr.endswith(" pre")
        forms = fr.split(" ")[0].split("/")
        a.fr_m, a.fr_f = forms[0], forms[1]
        a.fr_mv = forms[2] if len(forms) > 2 else forms[0]
        de_forms = de.split("/")
        a.de, a.de_stem = de_forms[0], de_forms[-1]
        out.append(a)
    return out


def _parse_verbs() -> list[_Verb]:
    out = []
    for ln in _lines(_VERBS_TXT):
        en, fr, de = _split(ln)
        v = _Verb()
        v.en, v.fr, v.de = (tuple(x.split("/")) for x in (en, fr, de))
        out.append(v)
    return out


def _parse_counted():
    out = []  # (en_sg, en_pl, fr_sg, fr_pl, fr_g, de_sg, de_pl, category)
    for ln in _lines(_COUNTED_TXT):
        en, fr, de, cat = _split(ln)
        fr, g = fr.rsplit(" ", 1)
        out.append((*en.split("/"), *fr.split("/"), g, *de.split("/"), cat))
    return out


_NOUNS = _parse_nouns()
_ADJS = _parse_adjs()
_VERBS = _parse_verbs()
_COUNTED = _parse_counted()
_ADVERBS = [tuple(_split(ln)) for ln in _lines(_ADVERBS_TXT)]
_PLACES = [tuple(_split(ln)) for ln in _lines(_PLACES_TXT)]
_PERSONS = [(f"{f.split()[0]} {last}", f.split()[1]) for f in _FIRST_NAMES for last in _LAST_NAMES]
_AGENTS = [i for i, n in enumerate(_NOUNS) if n.agent]
_THINGS = [i for i, n in enumerate(_NOUNS) if not n.agent]
_ADJ_ID = {a.en: i for i, a in enumerate(_ADJS)}
_ADJ_IDS = range(len(_ADJS))
_VERB_IDS = range(len(_VERBS))
_PLACE_IDS = range(len(_PLACES))
_PERSON_IDS = range(len(_PERSONS))
_ADVERB_IDS = range(len(_ADVERBS))
_COUNTED_BY_CAT: dict[str, list[int]] = {}
for _i, _c in enumerate(_COUNTED):
    _COUNTED_BY_CAT.setdefault(_c[-1], []).append(_i)
_LANG_COL = {"en": 0, "fr": 1, "de": 2}
_LANG_NAMES = {"en": "English", "fr": "Français", "de": "Deutsch"}


# ---------------------------------------------------------------------------------------
# Morphology: noun phrases, verbs, adjectives, numbers, dates in each language
# ---------------------------------------------------------------------------------------

def _cap(s: str) -> str:
    return s[:1].upper() + s[1:]


_FR_VOWELS = frozenset("aeiouyhàâäéèêëîïôöûüœAEIOUYÀÂÉÈÊÎÔÛ")
_EN_PREP = {"in": "in", "of": "of", "for": "for", "with": "with", "near": "near", "to": "to",
            "on": "on", "about": "about", "behind": "behind", "into": "into"}
_FR_PREP = {"in": "dans", "of": "de", "for": "pour", "with": "avec", "near": "près de",
            "to": "à", "on": "sur", "about": "sur", "behind": "derrière", "into": "dans"}
_DE_PREP = {"in": ("in", "dat"), "of": ("von", "dat"), "for": ("für", "acc"),
            "with": ("mit", "dat"), "near": ("neben", "dat"), "to": ("zu", "dat"),
            "on": ("an", "dat"), "about": ("über", "acc"), "behind": ("hinter", "dat"),
            "into": ("in", "acc")}
_DE_DEF = {"nom": {"m": "der", "f": "die", "n": "das"}, "acc": {"m": "den", "f": "die", "n": "das"},
           "dat": {"m": "dem", "f": "der", "n": "dem"}}
_DE_WEAK = {"nom": {"m": "e", "f": "e", "n": "e"}, "acc": {"m": "en", "f": "e", "n": "e"},
            "dat": {"m": "en", "f": "en", "n": "en"}}
_DE_INDEF = {"nom": {"m": "ein", "f": "eine", "n": "ein"},
             "acc": {"m": "einen", "f": "eine", "n": "ein"},
             "dat": {"m": "einem", "f": "einer", "n": "einem"}}
_DE_MIXED = {"nom": {"m": "er", "f": "e", "n": "es"}, "acc": {"m": "en", "f": "e", "n": "es"},
             "dat": {"m": "en", "f": "en", "n": "en"}}
_DE_STRONG_NOM = {"m": "er", "f": "e", "n": "es"}
_DE_CONTRACT = {("in", "dem"): "im", ("von", "dem"): "vom", ("zu", "dem"): "zum",
                ("zu", "der"): "zur", ("an", "dem"): "am", ("in", "das"): "ins"}
_CASES = ("nom", "acc", "dat")
_INDEF = ("inom", "iacc", "idat")


def _en_np(n: _Noun, a: _Adj | None, form: str) -> str:
    core = f"{a.en} {n.en}" if a else n.en
    if form in ("title", "bare"):
        return _cap(core) if form == "title" else core
    if form == "pron":
        return "it"
    if form in _INDEF:
        low = core.lower()
        vowel = low[0] in "aeiou" and not low.startswith(("eu", "uni", "use"))
        return ("an " if vowel else "a ") + core
    if form in _CASES:
        return "the " + core
    return f"{_EN_PREP[form]} the {core}"


def _fr_np(n: _Noun, a: _Adj | None, form: str) -> str:
    g = n.fr_g
    if a is None:
        core = n.fr
    elif a.fr_pre:
        adj = a.fr_f if g == "f" else (a.fr_mv if n.fr[0] in _FR_VOWELS else a.fr_m)
        core = f"{adj} {n.fr}"
    else:
        core = f"{n.fr} {a.fr_f if g == 'f' else a.fr_m}"
    if form in ("title", "bare"):
        return _cap(core) if form == "title" else core
    if form == "pron":
        return "elle" if g == "f" else "il"
    if form in _INDEF:
        return ("une " if g == "f" else "un ") + core
    if core[0] in _FR_VOWELS:
        art, det = "l'", "l'" + core
    elif g == "f":
        art, det = "la", "la " + core
    else:
        art, det = "le", "le " + core
    if form in _CASES:
        return det
    prep = _FR_PREP[form]
    if art == "le":  # à le -> au, de le -> du
        if prep == "à" or prep.endswith(" à"):
            return prep[:-1] + "au " + core
        if prep == "de" or prep.endswith(" de"):
            return prep[:-2] + "du " + core
    return f"{prep} {det}"


def _de_np(n: _Noun, a: _Adj | None, form: str) -> str:
    g = n.de_g
    if form in ("title", "bare"):
        return _cap(f"{a.de_stem}{_DE_STRONG_NOM[g]} {n.de}") if a else n.de
    if form == "pron":
        return {"m": "er", "f": "sie", "n": "es"}[g]
    if form in _INDEF:
        case = form[1:]
        art, end, prep = _DE_INDEF[case][g], _DE_MIXED[case][g], ""
    else:
        prep, case = ("", form) if form in _CASES else _DE_PREP[form]
        art, end = _DE_DEF[case][g], _DE_WEAK[case][g]
    core = f"{a.de_stem}{end} {n.de}" if a else n.de
    if prep:
        merged = _DE_CONTRACT.get((prep, art))
        return f"{merged} {core}" if merged else f"{prep} {art} {core}"
    return f"{art} {core}"


_NP_FUNCS = {"en": _en_np, "fr": _fr_np, "de": _de_np}


@lru_cache(maxsize=None)
def _np(lang: str, noun: int, adj: int, form: str) -> str:
    return _NP_FUNCS[lang](_NOUNS[noun], _ADJS[adj] if adj >= 0 else None, form)


def _noun_gender(lang: str, noun: int) -> str:
    n = _NOUNS[noun]
    return n.fr_g if lang == "fr" else (n.de_g if lang == "de" else "n")


def _adj_pred(lang: str, adj: int, gender: str) -> str:
    a = _ADJS[adj]
    if lang == "fr":
        return a.fr_f if gender == "f" else a.fr_m
    return a.de if lang == "de" else a.en


def _verb(lang: str, verb: int, form: str, slots: dict) -> str:
    v = _VERBS[verb]
    if lang == "en":
        base, s3, past, pp = v.en
        return {"pres": s3, "past": past, "pp": pp, "ppO": pp, "inf": base, "fut": "will " + base,
                "perf": "has " + pp, "aux": "has"}[form]
    if lang == "fr":
        inf, s3, pp, fut = v.fr
        if form == "ppO":  # participle agreeing with the object (passive)
            return pp + "e" if _noun_gender("fr", slots["O"][0]) == "f" else pp
        return {"pres": s3, "past": "a " + pp, "perf": "a " + pp, "pp": pp, "inf": inf,
                "fut": fut, "aux": "a"}[form]
    inf, s3, pp = v.de
    return {"pres": s3, "past": pp, "perf": "hat " + pp, "pp": pp, "ppO": pp, "inf": inf,
            "fut": "wird " + inf, "aux": "hat"}[form]


def _date(lang: str, ymd: tuple[int, int, int], form: str) -> str:
    y, m, d = ymd
    month = _MONTHS[lang][m - 1]
    if lang == "en":
        plain = f"{d} {month} {y}"
        return {"": plain, "on": "on " + plain, "until": "until " + plain,
                "from": "from " + plain, "before": "before " + plain}[form]
    if lang == "fr":
        plain = f"{'1er' if d == 1 else d} {month} {y}"
        return {"": plain, "on": "le " + plain, "until": "jusqu'au " + plain,
                "from": "à partir du " + plain, "before": "avant le " + plain}[form]
    plain = f"{d}. {month} {y}"
    return {"": plain, "on": "am " + plain, "until": "bis zum " + plain,
            "from": "ab dem " + plain, "before": "vor dem " + plain}[form]


def _price(lang: str, cents: int) -> str:
    euros, c = divmod(cents, 100)
    if lang == "en":
        return f"€{euros}.{c:02d}" if c else f"€{euros}"
    return f"{euros},{c:02d} €" if c else f"{euros} €"


def _counted(lang: str, value: tuple[int, int], form: str) -> str:
    count, idx = value
    en_sg, en_pl, fr_sg, fr_pl, fr_g, de_sg, de_pl, _cat = _COUNTED[idx]
    if lang == "en":
        word = en_pl if count != 1 else en_sg
        return f"many {en_pl}" if form == "many" else f"{count} {word}"
    if lang == "fr":
        if form == "many":
            return ("de nombreuses " if fr_g == "f" else "de nombreux ") + fr_pl
        return f"{count} {fr_pl if count > 1 else fr_sg}"
    return f"viele {de_pl}" if form == "many" else f"{count} {de_pl if count != 1 else de_sg}"


def _place(lang: str, idx: int, form: str) -> str:
    name = _PLACES[idx][_LANG_COL[lang]]
    if not form:
        return name
    if lang == "en":
        return f"{form} {name}"
    if lang == "fr":
        return ("à " if form in ("in", "to") else "de ") + name
    return {"in": "in ", "to": "nach ", "of": "von ", "from": "von "}[form] + name


def _hours(lang: str, h: tuple[int, int]) -> str:
    a, b = h
    if lang == "en":
        return f"from {a}:00 to {b}:00"
    return f"de {a} h à {b} h" if lang == "fr" else f"von {a} bis {b} Uhr"


def _render_slot(lang: str, name: str, spec: str, slots: dict) -> str:
    """One template field, e.g. ``{O:acc}`` -> name "O", spec "acc"."""
    kind = name[0]
    val = slots[name]
    if kind in "SO":
        return _np(lang, val[0], val[1], spec)
    if kind == "V":
        return _verb(lang, val, spec, slots)
    if kind == "Q":
        gender = "m" if spec == "m" else _noun_gender(lang, slots[spec][0])
        return _adj_pred(lang, val, gender)
    if kind == "P":
        return _place(lang, val, spec)
    if kind == "W":
        name_, gender = _PERSONS[val]
        if spec == "born":
            return {"en": "born", "fr": "née" if gender == "f" else "né", "de": "geboren"}[lang]
        return name_
    if kind == "Y":
        if spec == "in":
            return {"en": f"in {val}", "fr": f"en {val}", "de": f"im Jahr {val}"}[lang]
        return str(val)
    if kind == "D":
        return _date(lang, val, spec)
    if kind == "M":
        return _price(lang, val)
    if kind == "N":
        return _counted(lang, val, spec)
    if kind == "A":
        return _ADVERBS[val][_LANG_COL[lang]]
    if kind == "E":
        return _SEASONS[val][_LANG_COL[lang]]
    if kind == "H":
        return _hours(lang, val)
    return str(val)  # K (number), C (product code), T (phone)


# French elision the templates cannot know in advance: "de ouvrir" -> "d'ouvrir",
# "de Anvers" -> "d'Anvers" (noun phrases handle their own articles).
_FR_ELISION = re.compile(r"(?<![\w'])([dD]e|[qQ]ue|[nN]e|[jJ]usque) (?=[aeiouyhàâéèêëîïôûœAEIOUYÀÂÉÈÊÎÔÛ])")


def _fr_elide(s: str) -> str:
    return _FR_ELISION.sub(lambda m: m.group(1)[:-1] + "'", s)


# ---------------------------------------------------------------------------------------
# Templates. Fields: S/O/O2 noun phrases (forms nom, acc, dat, inom, iacc, title, pron or a
# preposition), V verb (pres, past, perf, pp, ppO, inf, fut, aux), Q/Q2 predicative
# adjective agreeing with the named slot (or m), P place, W person, Y year, D date,
# M price, N counted noun, K number, C product code, T phone, A adverb, E season,
# H opening hours. Options: agent (S acts), O_agent, N category, Q allowed adjectives,
# K range, Y range, product (only in product-like sections), rare (lower weight),
# connective (False for questions and imperatives, which take no "Moreover, ").
# ---------------------------------------------------------------------------------------

_SENTENCE_TEMPLATES = [
    ("{S:nom} {V:pres} {O:acc} {P:in}.",
     "{S:nom} {V:pres} {O:acc} {P:in}.",
     "{S:nom} {V:pres} {O:acc} {P:in}.", {"agent": 1}),
    ("In {Y}, {S:nom} {V:past} {O:acc}.",
     "Au cours de l'année {Y}, {S:nom} {V:perf} {O:acc}.",
     "Im Jahr {Y} {V:aux} {S:nom} {O:acc} {V:pp}.", {"agent": 1}),
    ("According to {W}, {S:nom} is {Q:S} and {Q2:S}.",
     "D'après {W}, {S:nom} est {Q:S} et {Q2:S}.",
     "Laut {W} ist {S:nom} {Q:S} und {Q2:S}.", {}),
    ("{S:nom} {V:fut} {O:acc} {D:on}.",
     "{S:nom} {V:fut} {O:acc} {D:on}.",
     "{S:nom} wird {D:on} {O:acc} {V:inf}.", {"agent": 1}),
    ("More than {N} visited {O:acc} in {Y}.",
     "Plus de {N} ont visité {O:acc} au cours de l'année {Y}.",
     "Mehr als {N} haben {Y} {O:acc} besucht.", {"N": "people"}),
    ("The entrance to {O:acc} costs {M}.",
     "Le prix d'entrée {O:of} s'élève à {M}.",
     "Der Eintritt {O:into} kostet {M}.", {}),
    ("The reference number {O:of} is {C}.",
     "Le numéro de référence {O:of} est le {C}.",
     "Die Referenznummer {O:of} lautet {C}.", {"product": 1}),
    ("{W} {V:pres} {O:acc} {A}.",
     "{W} {V:pres} {O:acc} {A}.",
     "{W} {V:pres} {A} {O:acc}.", {}),
    ("There is {O:iacc} {S:near}.",
     "On trouve {O:iacc} {S:near}.",
     "Es gibt {O:iacc} {S:near}.", {}),
    ("{S:nom} has {N}.",
     "{S:nom} dispose de {N}.",
     "{S:nom} hat {N}.", {"N": "things"}),
    ("Tickets cost {M} and are available {D:from}.",
     "Les billets coûtent {M} et sont disponibles à la vente {D:from}.",
     "Die Eintrittskarten kosten {M} und sind {D:from} erhältlich.", {}),
    ("{S:nom} is {Q:S} every day {H}.",
     "{S:nom} est {Q:S} tous les jours de la semaine {H}.",
     "{S:nom} ist täglich {H} {Q:S}.", {"Q": ("open",)}),
    ("{N:many} come {P:to} every year.",
     "{N:many} se rendent {P:to} chaque année.",
     "Jedes Jahr kommen {N:many} {P:to}.", {"N": "people"}),
    ("The work on {O:acc} will last {K} months.",
     "Les travaux prévus sur {O:acc} dureront {K} mois.",
     "Die Arbeiten {O:on} dauern {K} Monate.", {"K": (2, 30)}),
    ("Why does {S:nom} {V:inf} {O:acc}?",
     "Pourquoi est-ce que {S:nom} {V:pres} {O:acc} ?",
     "Warum {V:pres} {S:nom} {O:acc}?", {"agent": 1, "connective": False}),
    ("{O:nom} was {V:pp} by {W} in {Y}.",
     "{O:nom} a été {V:ppO} par {W} en {Y}.",
     "{O:nom} wurde {Y} von {W} {V:pp}.", {}),
    ("Residents can {V:inf} {O:acc} {D:until}.",
     "Les habitants ont la possibilité de {V:inf} {O:acc} {D:until}.",
     "Die Einwohner können {D:until} {O:acc} {V:inf}.", {}),
    ("It is {Q:m} to {V:inf} {O:acc} {E}.",
     "Il est {Q:m} de {V:inf} {O:acc} {E}.",
     "Es ist {Q:m}, {E} {O:acc} zu {V:inf}.",
     {"Q": ("important", "possible", "necessary", "useful", "pleasant", "simple", "difficult")}),
    ("{S:nom} costs {M} and creates {N}.",
     "{S:nom} coûte {M} et permettra de créer {N}.",
     "{S:nom} kostet {M} und schafft {N}.", {"N": "jobs"}),
    ("{W} says that {S:nom} {V:pres} {O:acc}.",
     "{W} explique que {S:nom} {V:pres} {O:acc}.",
     "{W} sagt, dass {S:nom} {O:acc} {V:pres}.", {"agent": 1}),
    ("{S:nom} is located {K} kilometres {P:from}.",
     "{S:nom} se trouve à {K} kilomètres {P:from}.",
     "{S:nom} liegt {K} Kilometer {P:from} entfernt.", {"K": (2, 90)}),
    ("For more information, please call {T}.",
     "Pour obtenir plus d'informations, n'hésitez pas à appeler le {T}.",
     "Weitere Informationen erhalten Sie unter {T}.", {"rare": 1, "connective": False}),
    ("{S:nom} attracts {N} every year.",
     "{S:nom} attire {N} tout au long de l'année.",
     "{S:nom} zieht jedes Jahr {N} an.", {"N": "people"}),
    ("Since {Y}, {S:nom} has been {Q:S}.",
     "Depuis l'année {Y}, {S:nom} est {Q:S}.",
     "Seit {Y} ist {S:nom} {Q:S}.", {}),
    ("Together with {O:acc}, {S:nom} {V:pres} {O2:acc}.",
     "En collaboration avec {O:acc}, {S:nom} {V:pres} {O2:acc}.",
     "Gemeinsam {O:with} {V:pres} {S:nom} {O2:acc}.", {"agent": 1, "O_agent": 1}),
    ("Opening hours will change {D:on}.",
     "Les horaires d'ouverture changeront {D:on}.",
     "Die Öffnungszeiten ändern sich {D:on}.", {"rare": 1}),
    ("{S:nom} was {Q:S} in {Y}, but today {S:pron} is {Q2:S}.",
     "{S:nom} était {Q:S} en {Y}, mais aujourd'hui {S:pron} est {Q2:S}.",
     "{S:nom} war im Jahr {Y} {Q:S}, aber heute ist {S:pron} {Q2:S}.", {}),
    ("Model {C} weighs {K} kilograms and costs {M}.",
     "Le modèle {C} pèse {K} kilogrammes et coûte {M}.",
     "Das Modell {C} wiegt {K} Kilogramm und kostet {M}.", {"product": 1, "K": (2, 60)}),
    ("We deliver {O:acc} within {K} working days.",
     "Nous livrons {O:acc} dans un délai de {K} jours ouvrés.",
     "Wir liefern {O:acc} innerhalb von {K} Werktagen.",
     {"product": 1, "K": (2, 15), "connective": False}),
    ("{W} was born {P:in} in {Y}.",
     "{W} est {W:born} {P:in} en {Y}.",
     "{W} wurde {Y} {P:in} geboren.", {"Y": (1940, 2000)}),
    ("Do not forget to {V:inf} {O:acc} {D:before}.",
     "N'oubliez pas de {V:inf} {O:acc} {D:before}.",
     "Vergessen Sie nicht, {D:before} {O:acc} zu {V:inf}.", {"connective": False}),
    ("{S:nom} {P:of} is {Q:S}.",
     "{S:nom} {P:of} est {Q:S}.",
     "{S:nom} {P:of} ist {Q:S}.", {}),
    ("{S:nom} {V:pres} {O:acc} {O2:for}.",
     "{S:nom} {V:pres} {O:acc} {O2:for}.",
     "{S:nom} {V:pres} {O:acc} {O2:for}.", {"agent": 1}),
    ("{S:nom} also {V:pres} {O:acc} {O2:with}.",
     "{S:nom} {V:pres} également {O:acc} {O2:with}.",
     "{S:nom} {V:pres} auch {O:acc} {O2:with}.", {"agent": 1}),
    ("What does {W} think of {O:acc}?",
     "Qu'est-ce que {W} pense {O:of} ?",
     "Was hält {W} {O:of}?", {"connective": False}),
    ("{S:nom} has grown by {K} percent since {Y}.",
     "{S:nom} a connu une croissance de {K} % depuis {Y}.",
     "{S:nom} ist seit {Y} um {K} Prozent gewachsen.", {"K": (2, 45)}),
]

_TITLE_TEMPLATES = [
    ("{S:title} {P:in}", "{S:title} {P:in}", "{S:title} {P:in}", {}),
    ("{W} {V:pres} {O:acc}", "{W} {V:pres} {O:acc}", "{W} {V:pres} {O:acc}", {}),
    ("{S:title}: {N} {Y:in}", "{S:title} : {N} {Y:in}", "{S:title}: {N} {Y:in}", {}),
    ("{S:nom} {V:fut} {O:acc}", "{S:nom} {V:fut} {O:acc}", "{S:nom} wird {O:acc} {V:inf}",
     {"agent": 1}),
    ("{S:nom} and {O:nom}", "{S:nom} et {O:nom}", "{S:nom} und {O:nom}", {}),
    ("{S:nom} {P:of}", "{S:nom} {P:of}", "{S:nom} {P:of}", {}),
]


class _Template:
    """A template compiled per language into (literal, field, spec) parts."""

    __slots__ = ("parts", "fields", "opts")

    def __init__(self, en: str, fr: str, de: str, opts: dict):
        fmt = string.Formatter()
        self.parts = {}
        fields = set()
        for lang, text in (("en", en), ("fr", fr), ("de", de)):
            parts = [(lit, name, spec) for lit, name, spec, _conv in fmt.parse(text)]
            self.parts[lang] = parts
            fields.update(name for _lit, name, _spec, in parts if name)
            # Q:S agreement needs the slot it agrees with to be filled.
            fields.update(spec for _lit, name, spec in parts
                          if name and name[0] == "Q" and spec not in ("m", ""))
        self.fields = tuple(sorted(fields, key=lambda f: (f not in ("S", "O", "O2"), f)))
        self.opts = opts

    def render(self, lang: str, slots: dict) -> str:
        out = []
        for lit, name, spec in self.parts[lang]:
            out.append(lit)
            if name:
                out.append(_render_slot(lang, name, spec, slots))
        s = "".join(out)
        return _fr_elide(s) if lang == "fr" else s


_SENTENCES = [_Template(*t) for t in _SENTENCE_TEMPLATES]
_TITLES = [_Template(*t) for t in _TITLE_TEMPLATES]


# Fields whose values read the same in every language (numbers, codes, proper names):
# language-independent evidence a content similarity can match without translating.
_ANCHOR_FIELDS = frozenset("YDMNKCTHWP")


def _has_anchor(t: _Template) -> bool:
    return any(f[0] in _ANCHOR_FIELDS for f in t.fields)


def _template_weights(product: bool, anchors: bool = True) -> list[float]:
    cum, total = [], 0.0
    for t in _SENTENCES:
        w = 0.3 if t.opts.get("rare") else 1.0
        if t.opts.get("product"):
            w = 3.0 if product else 0.0
        if not anchors and _has_anchor(t):
            w = 0.0
        total += w
        cum.append(total)
    return cum


_CUM_WEIGHTS = {(product, anchors): _template_weights(product, anchors)
                for product in (False, True) for anchors in (False, True)}
_TITLES_WITHOUT_ANCHORS = [t for t in _TITLES if not _has_anchor(t)]


# ---------------------------------------------------------------------------------------
# Planning: language-independent content, rendered later in every language
# ---------------------------------------------------------------------------------------

class _Pool:
    """The topic of one page: the few words most of its sentences draw from."""

    __slots__ = ("agents", "things", "adjs", "verbs", "places", "persons", "adverbs")

    def __init__(self, rng: random.Random, place: int | None = None):
        self.agents = rng.sample(_AGENTS, 3)
        self.things = rng.sample(_THINGS, 6)
        self.adjs = rng.sample(range(len(_ADJS)), 6)
        self.verbs = rng.sample(range(len(_VERBS)), 5)
        self.places = rng.sample(range(len(_PLACES)), 2)
        if place is not None:
            self.places[0] = place
        self.persons = rng.sample(range(len(_PERSONS)), 2)
        self.adverbs = rng.sample(range(len(_ADVERBS)), 3)


def _pick(rng: random.Random, local: list[int], universe, p_local: float = 0.85) -> int:
    """Mostly a word of the page's topic, sometimes any word (``universe``: ids)."""
    return rng.choice(local if rng.random() < p_local else universe)


def _noun_phrase(rng: random.Random, pool: _Pool, agent: bool, avoid=(),
                 things_only: bool = False) -> tuple[int, int]:
    for _ in range(5):
        if agent:
            noun = _pick(rng, pool.agents, _AGENTS)
        elif things_only or rng.random() < 0.8:
            noun = _pick(rng, pool.things, _THINGS)
        else:
            noun = _pick(rng, pool.agents, _AGENTS)
        if noun not in avoid:
            break
    adj = _pick(rng, pool.adjs, _ADJ_IDS) if rng.random() < 0.4 else -1
    return noun, adj


def _fill(rng: random.Random, t: _Template, pool: _Pool) -> dict:
    """Choose values for every field of template ``t`` (shared by all languages)."""
    o = t.opts
    slots: dict = {}
    for name in t.fields:
        kind = name[0]
        if name == "S":
            slots[name] = _noun_phrase(rng, pool, bool(o.get("agent")))
        elif kind == "O":
            avoid = {v[0] for k, v in slots.items() if k[0] in "SO"}
            agent = name == "O" and bool(o.get("O_agent"))
            slots[name] = _noun_phrase(rng, pool, agent, avoid)
        elif kind == "V":
            slots[name] = _pick(rng, pool.verbs, _VERB_IDS)
        elif kind == "Q":
            allowed = o.get("Q")
            if allowed:
                slots[name] = _ADJ_ID[rng.choice(allowed)]
            else:
                # Not the adjective already in the subject ("the simple family is simple").
                taken = {slots.get("Q"), slots["S"][1] if "S" in slots else None}
                q = _pick(rng, pool.adjs, _ADJ_IDS, 0.7)
                while q in taken:
                    q = rng.randrange(len(_ADJS))
                slots[name] = q
        elif kind == "P":
            slots[name] = _pick(rng, pool.places, _PLACE_IDS)
        elif kind == "W":
            slots[name] = _pick(rng, pool.persons, _PERSON_IDS)
        elif kind == "Y":
            slots[name] = rng.randint(*o.get("Y", (1990, 2025)))
        elif kind == "D":
            slots[name] = (rng.randint(2018, 2026), rng.randint(1, 12), rng.randint(1, 28))
        elif kind == "M":
            euros = rng.choice((rng.randint(2, 60), rng.randint(10, 900), rng.randint(100, 5000)))
            slots[name] = euros * 100 + (rng.choice((0, 0, 50, 90, 99)) if euros < 100 else 0)
        elif kind == "N":
            cat = o.get("N") or rng.choice(("people", "things"))
            hi = {"people": 5000, "things": 800, "jobs": 300}[cat]
            slots[name] = (rng.randint(5, hi), rng.choice(_COUNTED_BY_CAT[cat]))
        elif kind == "K":
            slots[name] = rng.randint(*o.get("K", (2, 50)))
        elif kind == "C":
            slots[name] = _product_code(rng)
        elif kind == "T":
            slots[name] = _phone(rng)
        elif kind == "A":
            slots[name] = _pick(rng, pool.adverbs, _ADVERB_IDS)
        elif kind == "E":
            slots[name] = rng.randrange(len(_SEASONS))
        elif kind == "H":
            slots[name] = (rng.randint(7, 10), rng.randint(17, 22))
    return slots


def _product_code(rng: random.Random) -> str:
    letters = "".join(rng.choice("ABCDEFGHJKLMNPRSTVXZ") for _ in range(2))
    return f"{letters}-{rng.randint(1000, 9999)}"


def _phone(rng: random.Random) -> str:
    return "+33 4 " + " ".join(f"{rng.randint(10, 99)}" for _ in range(4))


class _Sentence:
    """One sentence, planned once and rendered per language."""

    __slots__ = ("t", "slots", "conn")

    def __init__(self, t: _Template, slots: dict, conn: dict | None):
        self.t, self.slots, self.conn = t, slots, conn

    def render(self, lang: str) -> str:
        s = self.t.render(lang, self.slots)
        if self.conn and lang in self.conn:
            # After a connective, a template's own first word is lowercased ("Par ailleurs,
            # les billets..."); slots already come lowercase or as proper names.
            if self.t.parts[lang][0][0]:
                s = s[0].lower() + s[1:]
            return self.conn[lang] + s
        return _cap(s)


def _sentence(rng: random.Random, pool: _Pool, cum_weights: list[float]) -> _Sentence:
    t = rng.choices(_SENTENCES, cum_weights=cum_weights)[0]
    slots = _fill(rng, t, pool)
    conn = None
    for lang, p in _CONNECTIVE_P.items():
        if p and t.opts.get("connective", True) and rng.random() < p:
            conn = conn or {}
            conn[lang] = rng.choice(_CONNECTIVES[lang])
    return _Sentence(t, slots, conn)


def _title(rng: random.Random, pool: _Pool, anchors: bool = True) -> _Sentence:
    t = rng.choice(_TITLES if anchors else _TITLES_WITHOUT_ANCHORS)
    return _Sentence(t, _fill(rng, t, pool), None)


class _Plan:
    """A page's content before rendering: title, date, blocks.

    Blocks: ("p", [sentences]), ("ul", [noun phrases]), ("table", [(np, code, price)]),
    ("img", (image id, noun phrase, place)). ``only`` maps a block index to the single
    side (0 or 1) that has it: the small differences real translations have.
    """

    __slots__ = ("title", "date", "blocks", "only", "pool", "anchors")

    def __init__(self, title, date, blocks, pool):
        self.title, self.date, self.blocks, self.pool = title, date, blocks, pool
        self.only: dict[int, int] = {}
        self.anchors = True     # False: the date is not shown (see SiteSpec.anchors)


def _plan_article(rng: random.Random, product: bool, place: int,
                  anchors: bool = True) -> _Plan:
    pool = _Pool(rng, place if rng.random() < 0.5 else None)
    cum = _CUM_WEIGHTS[product, anchors]
    blocks: list = [("p", [_sentence(rng, pool, cum) for _ in range(rng.randint(1, 4))])
                    for _ in range(rng.randint(2, 8))]
    # Lists, tables and pictures go between paragraphs, never first.
    if rng.random() < 0.3:
        blocks.insert(rng.randint(1, len(blocks)), ("ul", _distinct_things(rng, pool, 3, 6)))
    if anchors and rng.random() < (0.5 if product else 0.15):
        rows = [(np_, _product_code(rng), rng.randint(5, 900) * 100)
                for np_ in _distinct_things(rng, pool, 2, 6)]
        blocks.insert(rng.randint(1, len(blocks)), ("table", rows))
    for _ in range(rng.choice((0, 0, 1, 1, 2))):
        img = (f"{rng.getrandbits(40):010x}", _noun_phrase(rng, pool, False, things_only=True),
               rng.choice(pool.places) if anchors else None)
        blocks.insert(rng.randint(1, len(blocks)), ("img", img))
    date = (rng.randint(2015, 2025), rng.randint(1, 12), rng.randint(1, 28))
    plan = _Plan(_title(rng, pool, anchors), date, blocks, pool)
    plan.anchors = anchors
    return plan


def _distinct_things(rng: random.Random, pool: _Pool, lo: int, hi: int) -> list:
    """Noun phrases for a list or table: things, each noun once."""
    out, seen = [], set()
    for _ in range(rng.randint(lo, hi)):
        np_ = _noun_phrase(rng, pool, False, seen, things_only=True)
        if np_[0] not in seen:
            seen.add(np_[0])
            out.append(np_)
    return out


def _add_one_sided_differences(rng: random.Random, plan: _Plan) -> None:
    """Sometimes one version has an extra paragraph or lacks a picture."""
    if rng.random() < 0.08:
        side = rng.randrange(2)
        extra = ("p", [_sentence(rng, plan.pool, _CUM_WEIGHTS[False, plan.anchors])
                       for _ in range(rng.randint(1, 2))])
        pos = rng.randint(1, len(plan.blocks))
        plan.blocks.insert(pos, extra)
        plan.only = {(i + 1 if i >= pos else i): s for i, s in plan.only.items()}
        plan.only[pos] = side
    imgs = [i for i, b in enumerate(plan.blocks) if b[0] == "img" and i not in plan.only]
    if imgs and rng.random() < 0.1:
        plan.only[rng.choice(imgs)] = rng.randrange(2)


# ---------------------------------------------------------------------------------------
# Rendering of the main text
# ---------------------------------------------------------------------------------------

_esc = html.escape


def _href(url: str) -> str:
    """Attribute-escape a generated URL (they hold no quotes or angle brackets)."""
    return url.replace("&", "&amp;") if "&" in url else url


def _t(s: str) -> str:
    return html.escape(s, quote=False)


def _render_main(lang: str, plan: _Plan, side: int | None, ui: dict) -> tuple[str, list]:
    """HTML of the blocks for one language, and the sentences of each block (None for
    blocks that are not paragraphs or that only this side has)."""
    out = []
    sentences = []
    for i, block in enumerate(plan.blocks):
        only = plan.only.get(i)
        if only is not None and only != side:
            continue
        kind, data = block
        if kind == "p":
            sents = [s.render(lang) for s in data]
            out.append(f"<p>{_t(' '.join(sents))}</p>\n")
            sentences.append(sents if only is None else None)
            continue
        if kind == "ul":
            items = "".join(f"<li>{_t(_np(lang, n, a, 'title'))}</li>" for n, a in data)
            out.append(f'<ul class="facts">{items}</ul>\n')
        elif kind == "table":
            head = "".join(f"<th>{_t(h)}</th>" for h in ui["table_head"])
            rows = "".join(
                f"<tr><td>{_t(_np(lang, n, a, 'title'))}</td><td>{code}</td>"
                f"<td>{_t(_price(lang, cents))}</td></tr>"
                for (n, a), code, cents in data)
            out.append(f'<table class="data"><thead><tr>{head}</tr></thead>'
                       f"<tbody>{rows}</tbody></table>\n")
        elif kind == "img":
            img_id, (n, a), place = data
            alt = _np(lang, n, a, "title")
            if place is not None:
                alt += " " + _place(lang, place, "in")
            out.append(f'<figure><img src="/img/{img_id}.jpg" alt="{_esc(alt)}" width="640" '
                       f'height="420"><figcaption>{_t(alt)}</figcaption></figure>\n')
        sentences.append(None)
    return "".join(out), sentences


# ---------------------------------------------------------------------------------------
# Boilerplate in each language
# ---------------------------------------------------------------------------------------

_UI = {
    "en": {
        "site": "City of {P}", "home": "Home", "about": "About us", "contact": "Contact",
        "legal": "Legal notice", "related": "Related articles", "latest": "Latest articles",
        "sections": "Sections", "menu": "Main menu", "published": "Published on",
        "prev": "Previous", "next": "Next", "page": "Page {p} of {n}", "press": "Press",
        "rights": "All rights reserved.", "staff": "Staff area", "archives": "Archives",
        "languages": "Other languages", "table_head": ("Item", "Code", "Price"),
        "welcome": "Welcome to the official website of the city of {P}.",
        "home_more": "Here you will find news, events and practical information about our city.",
        "section_intro": "This page lists the articles of the {s} section.",
        "section_more": "The most recent articles are shown first.",
        "about_intro": "The city of {P} publishes this website to inform residents and visitors.",
        "about_team": "Our editorial team updates the pages every week.",
        "contact_line": "You can reach our team by phone at {T} or by email at {E}.",
        "private": "This area is reserved for the staff of the city.",
        "private_more": "Please do not share the documents published on these pages.",
    },
    "fr": {
        "site": "Ville de {P}", "home": "Accueil", "about": "Qui sommes-nous", "contact": "Contact",
        "legal": "Mentions légales", "related": "Articles liés", "latest": "Derniers articles",
        "sections": "Rubriques", "menu": "Menu principal", "published": "Publié le",
        "prev": "Précédent", "next": "Suivant", "page": "Page {p} sur {n}", "press": "Presse",
        "rights": "Tous droits réservés.", "staff": "Espace du personnel", "archives": "Archives",
        "languages": "Autres langues", "table_head": ("Article", "Code", "Prix"),
        "welcome": "Bienvenue sur le site officiel de la ville de {P}.",
        "home_more": "Vous trouverez ici les actualités, les événements et des informations "
                     "pratiques sur notre ville.",
        "section_intro": "Cette page présente les articles de la rubrique {s}.",
        "section_more": "Les articles les plus récents sont affichés en premier.",
        "about_intro": "La ville de {P} publie ce site pour informer les habitants et les "
                       "visiteurs.",
        "about_team": "Notre équipe de rédaction met à jour les pages chaque semaine.",
        "contact_line": "Vous pouvez joindre notre équipe par téléphone au {T} ou par courriel "
                        "à l'adresse {E}.",
        "private": "Cet espace est réservé au personnel de la ville.",
        "private_more": "Merci de ne pas diffuser les documents publiés sur ces pages.",
    },
    "de": {
        "site": "Stadt {P}", "home": "Startseite", "about": "Über uns", "contact": "Kontakt",
        "legal": "Impressum", "related": "Ähnliche Artikel", "latest": "Neueste Artikel",
        "sections": "Rubriken", "menu": "Hauptmenü", "published": "Veröffentlicht am",
        "prev": "Zurück", "next": "Weiter", "page": "Seite {p} von {n}", "press": "Presse",
        "rights": "Alle Rechte vorbehalten.", "staff": "Mitarbeiterbereich", "archives": "Archiv",
        "languages": "Andere Sprachen", "table_head": ("Artikel", "Code", "Preis"),
        "welcome": "Willkommen auf der offiziellen Website der Stadt {P}.",
        "home_more": "Hier finden Sie Nachrichten, Veranstaltungen und praktische Informationen "
                     "über unsere Stadt.",
        "section_intro": "Diese Seite zeigt die Artikel der Rubrik {s}.",
        "section_more": "Die neuesten Artikel werden zuerst angezeigt.",
        "about_intro": "Die Stadt {P} veröffentlicht diese Website, um Einwohner und Besucher "
                       "zu informieren.",
        "about_team": "Unsere Redaktion aktualisiert die Seiten jede Woche.",
        "contact_line": "Sie erreichen unser Team telefonisch unter {T} oder per E-Mail an {E}.",
        "private": "Dieser Bereich ist den Mitarbeitern der Stadt vorbehalten.",
        "private_more": "Bitte geben Sie die hier veröffentlichten Dokumente nicht weiter.",
    },
}

# (url slug per language, label per language, product-like)
_SECTIONS = [
    (("news", "actualites", "nachrichten"), ("News", "Actualités", "Nachrichten"), False),
    (("events", "evenements", "veranstaltungen"), ("Events", "Événements", "Veranstaltungen"),
     False),
    (("culture", "culture", "kultur"), ("Culture", "Culture", "Kultur"), False),
    (("products", "produits", "produkte"), ("Products", "Produits", "Produkte"), True),
    (("tourism", "tourisme", "tourismus"), ("Tourism", "Tourisme", "Tourismus"), False),
    (("economy", "economie", "wirtschaft"), ("Economy", "Économie", "Wirtschaft"), True),
    (("environment", "environnement", "umwelt"), ("Environment", "Environnement", "Umwelt"),
     False),
    (("sport", "sport", "sport"), ("Sport", "Sport", "Sport"), False),
]
_MIXED_CYCLE = ("prefix", "slug", "suffix", "query", "opaque")
_PER_PAGE = 20


def _slugify(text: str, max_words: int = 6) -> str:
    text = text.replace("ß", "ss").replace("œ", "oe")
    ascii_ = unicodedata.normalize("NFKD", text).encode("ascii", "ignore").decode().lower()
    words = re.findall(r"[a-z0-9]+", ascii_)
    return "-".join(words[:max_words]) or "page"


# ---------------------------------------------------------------------------------------
# Site model
# ---------------------------------------------------------------------------------------

class _Section:
    __slots__ = ("slug", "label", "product", "scheme", "items", "pages")

    def __init__(self, slug, label, product, scheme):
        self.slug, self.label, self.product, self.scheme = slug, label, product, scheme
        self.items: dict[str, list] = {}   # lang -> articles listed, newest first
        self.pages: dict[str, list] = {}   # lang -> index page URLs (page 1 first)


class _Article:
    """An article: a translated pair (``urls`` has both langs), an untranslated page
    (one lang) or a third-language page."""

    __slots__ = ("plan", "section", "nid", "slugs", "urls", "titles", "hidden", "related",
                 "short_side", "kind", "source")

    def __init__(self, plan, section, nid, kind):
        self.plan, self.section, self.nid, self.kind = plan, section, nid, kind
        self.slugs: dict[str, str] = {}
        self.urls: dict[str, str] = {}
        self.titles: dict[str, str] = {}
        self.hidden = False
        self.related: list = []
        self.short_side: int | None = None  # side whose related list lacks its last entry
        self.source: _Article | None = None  # the pair a third-language page translates


@dataclass
class _Out:
    resources: dict = field(default_factory=dict)
    page_langs: dict = field(default_factory=dict)
    page_kinds: dict = field(default_factory=dict)
    gold: list = field(default_factory=list)
    sentence_gold: dict = field(default_factory=dict)


class _Builder:
    """Plans and renders one site. Methods are called in order by :meth:`build`."""

    def __init__(self, spec: SiteSpec, port: int):
        _validate(spec)
        self.spec = spec
        self.port = port
        self.rng = random.Random(spec.seed)
        self.l1, self.l2 = spec.langs[0], spec.langs[1]
        self.l3 = spec.third_lang if spec.n_third > 0 else None
        self.langs = [self.l1, self.l2] + ([self.l3] if self.l3 else [])
        self.side = {self.l1: 0, self.l2: 1}
        self.host = spec.host.lower()
        self.place = self.rng.randrange(len(_PLACES))
        self.phone = _phone(self.rng)
        self.email = f"contact@{self.host}"
        self.out = _Out()
        self._oids: set[int] = set()
        self._slugs_seen: dict[str, int] = {}
        # Real sites' language versions drift apart a little: one gets an extra menu item.
        self.extra_nav_lang = self.rng.choice((self.l1, self.l2, None))

    # -- small helpers -----------------------------------------------------------------

    def base(self, lang: str) -> str:
        if self.spec.scheme == "subdomain":
            return f"http://{lang}.{self.host}:{self.port}"
        return f"http://{self.host}:{self.port}"

    def oid(self) -> int:
        while True:
            n = self.rng.randrange(10 ** 6, 10 ** 7)
            if n not in self._oids:
                self._oids.add(n)
                return n

    def unique_slug(self, slug: str) -> str:
        candidate, n = slug, 1
        while candidate in self._slugs_seen:
            n += 1
            candidate = f"{slug}-{n}"
        self._slugs_seen[candidate] = 1
        return candidate

    def ui(self, lang: str, key: str, **kw) -> str:
        s = _UI[lang][key]
        if "{" not in s:
            return s
        s = s.format(P=_PLACES[self.place][_LANG_COL[lang]], **kw)
        return _fr_elide(s) if lang == "fr" else s  # "Ville de Avignon" -> "Ville d'Avignon"

    def site_scheme(self) -> str:
        """The scheme of pages outside sections (home, about)."""
        s = self.spec.scheme
        return "prefix" if s == "mixed" else s

    # -- URLs --------------------------------------------------------------------------

    def home_url(self, lang: str) -> str:
        s, b = self.site_scheme(), self.base(lang)
        if s == "prefix":
            return f"{b}/{lang}/"
        if s == "subdomain":
            return f"{b}/"
        if s == "suffix":
            return f"{b}/index_{lang}.html"
        if s == "query":
            return f"{b}/index.php?lang={lang}"
        return f"{b}/" if lang == self.l1 else f"{b}/node/{self.oid()}.html"

    def about_url(self, lang: str) -> str:
        s, b = self.site_scheme(), self.base(lang)
        if s == "prefix":
            return f"{b}/{lang}/about.html"
        if s == "subdomain":
            return f"{b}/about.html"
        if s == "suffix":
            return f"{b}/about_{lang}.html"
        if s == "query":
            return f"{b}/about.php?lang={lang}"
        return f"{b}/node/{self.oid()}.html"

    def index_url(self, lang: str, sec: _Section, page: int) -> str:
        b, slug = self.base(lang), sec.slug[0]
        s = sec.scheme
        if s in ("prefix", "subdomain", "slug"):
            root = {"prefix": f"/{lang}/{slug}/", "subdomain": f"/{slug}/",
                    "slug": f"/{lang}/{sec.slug[_LANG_COL[lang]]}/"}[s]
            return b + root + ("" if page == 1 else f"page/{page}/")
        if s == "suffix":
            return f"{b}/{slug}/index{'' if page == 1 else page}_{lang}.html"
        if s == "query":
            return f"{b}/section.php?s={slug}" + ("" if page == 1 else f"&p={page}") + \
                f"&lang={lang}"
        return f"{b}/node/{self.oid()}.html"

    def article_url(self, lang: str, art: _Article) -> str:
        b, sec = self.base(lang), art.section
        s = sec.scheme
        shared = art.slugs.get(self.l1) or next(iter(art.slugs.values()))
        if s == "prefix":
            return f"{b}/{lang}/{sec.slug[0]}/{shared}.html"
        if s == "subdomain":
            return f"{b}/{sec.slug[0]}/{shared}.html"
        if s == "suffix":
            return f"{b}/{sec.slug[0]}/{shared}_{lang}.html"
        if s == "query":
            return f"{b}/page.php?id={art.nid}&lang={lang}"
        if s == "slug":
            return f"{b}/{lang}/{sec.slug[_LANG_COL[lang]]}/{art.nid}-{art.slugs[lang]}"
        return f"{b}/node/{self.oid()}.html"

    # -- planning ----------------------------------------------------------------------

    def plan(self) -> None:
        spec, rng = self.spec, self.rng
        k = min(len(_SECTIONS), max(2, round(spec.n_pairs ** 0.5 / 2)))
        if spec.scheme == "mixed":
            k = max(k, len(_MIXED_CYCLE))
        chosen = rng.sample(_SECTIONS, k)
        self.sections = [
            _Section(slug, label, product,
                     _MIXED_CYCLE[i % len(_MIXED_CYCLE)] if spec.scheme == "mixed"
                     else spec.scheme)
            for i, (slug, label, product) in enumerate(chosen)]

        n_untr = round(spec.untranslated_fraction * spec.n_pairs)
        total = spec.n_pairs + n_untr + (spec.n_third if self.l3 else 0)
        nids = rng.sample(range(100, 100 + 10 * total + 100), total)

        # Sections are dealt out round-robin so every section has articles.
        def section_for(i):
            return self.sections[i % k] if i < k else rng.choice(self.sections)

        self.pairs = []
        for i in range(spec.n_pairs):
            sec = section_for(i)
            art = _Article(_plan_article(rng, sec.product, self.place, spec.anchors), sec, nids[i], "article")
            _add_one_sided_differences(rng, art.plan)
            if rng.random() < 0.1:
                art.short_side = rng.randrange(2)
            self.pairs.append(art)
        n_hidden = min(spec.n_pairs, round(spec.hidden_fraction * spec.n_pairs))
        for i in rng.sample(range(spec.n_pairs), n_hidden):
            self.pairs[i].hidden = True

        self.untranslated = []
        for j in range(n_untr):
            sec = rng.choice(self.sections)
            art = _Article(_plan_article(rng, sec.product, self.place, spec.anchors), sec,
                           nids[spec.n_pairs + j], "untranslated")
            art.urls = {rng.choice((self.l1, self.l2)): ""}
            self.untranslated.append(art)

        # Third-language pages translate the first articles (a trilingual core), or are
        # new when there are more of them than pairs.
        self.third = []
        if self.l3:
            for j in range(spec.n_third):
                src = self.pairs[j] if j < len(self.pairs) else None
                sec = src.section if src else rng.choice(self.sections)
                plan = src.plan if src else _plan_article(rng, sec.product, self.place, spec.anchors)
                art = _Article(plan, sec, src.nid if src else nids[spec.n_pairs + n_untr + j],
                               "article")
                art.urls = {self.l3: ""}
                art.source = src
                self.third.append(art)

        self._name_articles()
        self._link_articles()

    def _name_articles(self) -> None:
        """Titles, slugs and URLs of every article."""
        for art in self.pairs:
            langs = (self.l1, self.l2)
            self._title_and_slugs(art, langs)
            for lang in langs:
                art.urls[lang] = self.article_url(lang, art)
        for art in self.untranslated + self.third:
            (lang,) = art.urls
            self._title_and_slugs(art, (lang,))
            if art.source is not None:  # /de/news/<the en slug>.html, like its source
                art.slugs[self.l1] = art.source.slugs[self.l1]
            art.urls[lang] = self.article_url(lang, art)

    def _title_and_slugs(self, art: _Article, langs) -> None:
        for lang in langs:
            art.titles[lang] = art.plan.title.render(lang)
            art.slugs[lang] = _slugify(art.titles[lang])
        # Shared-slug schemes need one slug unique across the site.
        first = langs[0]
        art.slugs[first] = self.unique_slug(art.slugs[first])

    def _link_articles(self) -> None:
        """Section listings (newest first) and related articles."""
        rng = self.rng
        by_sec: dict[int, list] = {}
        for art in self.pairs:
            by_sec.setdefault(id(art.section), []).append(art)
        # Related articles come from the neighbourhood in the section (a window keeps this
        # linear in the size of the site).
        for arts in by_sec.values():
            for i, art in enumerate(arts):
                peers = arts[max(0, i - 12):i] + arts[i + 1:i + 13]
                art.related = rng.sample(peers, min(len(peers), rng.randint(2, 4)))
        for art in self.untranslated:
            peers = by_sec.get(id(art.section), [])
            peers = peers[:30] if len(peers) <= 30 else rng.sample(peers, 30)
            art.related = rng.sample(peers, min(len(peers), 3))
        for art in self.third:
            peers = [p for p in self.third if p is not art]
            art.related = rng.sample(peers, min(len(peers), 3))

        def newest_first(arts):
            return sorted(arts, key=lambda a: (a.plan.date, a.nid), reverse=True)

        for sec in self.sections:
            for lang in (self.l1, self.l2):
                listed = [a for a in by_sec.get(id(sec), []) if not (a.hidden and lang == self.l2)]
                listed += [a for a in self.untranslated if a.section is sec and lang in a.urls]
                sec.items[lang] = newest_first(listed)
                n_pages = max(1, -(-len(sec.items[lang]) // _PER_PAGE))
                sec.pages[lang] = [self.index_url(lang, sec, p) for p in range(1, n_pages + 1)]

        self.homes = {lang: self.home_url(lang) for lang in self.langs}
        self.abouts = {lang: self.about_url(lang) for lang in (self.l1, self.l2)}
        self.latest = {lang: [a for a in newest_first(self.pairs + self.untranslated)
                              if lang in a.urls and not (a.hidden and lang == self.l2)][:8]
                       for lang in (self.l1, self.l2)}
        self.private = [self.base(self.l1) + "/private/", self.base(self.l1) + "/private/staff.html"]

    # -- page chrome -------------------------------------------------------------------

    def page(self, lang: str, title: str, main: str, *, switch: list | None = None,
             alternates: dict | None = None, crumbs: list | None = None,
             sections_nav: bool = True) -> str:
        """A whole HTML page around ``main`` in ``lang``."""
        site = self.ui(lang, "site")
        home = self.homes[lang]
        head = [f'<!DOCTYPE html>\n<html lang="{lang}">\n<head>\n<meta charset="utf-8">\n'
                f'<meta name="viewport" content="width=device-width, initial-scale=1">\n'
                f"<title>{_t(title)} | {_t(site)}</title>\n"]
        if alternates:
            for alt_lang, url in alternates.items():
                head.append(f'<link rel="alternate" hreflang="{alt_lang}" href="{_href(url)}">\n')
        head.append('<link rel="stylesheet" href="/static/site.css">\n</head>\n<body>\n')
        body = [f'<header class="site-header">\n<a class="logo" href="{_href(home)}">'
                f'<img src="/static/logo.png" alt="{_esc(site)}"> {_t(site)}</a>\n']
        if switch:
            links = "".join(
                f'<li><a href="{_href(url)}" hreflang="{sl}" lang="{sl}">{_LANG_NAMES[sl]}</a></li>'
                for sl, url in switch)
            body.append(f'<ul class="language-switch"><li class="current" lang="{lang}">'
                        f"{_LANG_NAMES[lang]}</li>{links}</ul>\n")
        body.append("</header>\n")
        nav = [(home, self.ui(lang, "home"))]
        if sections_nav and lang in (self.l1, self.l2):
            col = _LANG_COL[lang]
            nav += [(sec.pages[lang][0], sec.label[col]) for sec in self.sections]
            nav.append((self.abouts[lang], self.ui(lang, "about")))
            if lang == self.extra_nav_lang:
                nav.append((self.abouts[lang] + "#press", self.ui(lang, "press")))
        items = "".join(f'<li><a href="{_href(u)}">{_t(label)}</a></li>' for u, label in nav)
        body.append(f'<nav class="main-menu" aria-label="{_esc(self.ui(lang, "menu"))}">'
                    f"<ul>{items}</ul></nav>\n")
        if crumbs:
            trail = [f'<a href="{_href(home)}">{_t(self.ui(lang, "home"))}</a>']
            trail += [f'<a href="{_href(u)}">{_t(label)}</a>' for u, label in crumbs]
            trail.append(f"<span>{_t(title)}</span>")
            body.append(f'<div class="breadcrumb">{" › ".join(trail)}</div>\n')
        body.append(f'<main id="content">\n{main}</main>\n')
        footer_links = [(self.abouts.get(lang, home), self.ui(lang, "contact")),
                        (self.abouts.get(lang, home) + "#legal", self.ui(lang, "legal"))]
        links = "".join(f'<li><a href="{_href(u)}">{_t(label)}</a></li>' for u, label in footer_links)
        body.append(f'<footer class="site-footer">\n<p class="copyright">© 2025 {_t(site)}. '
                    f'{_t(self.ui(lang, "rights"))}</p>\n<ul class="footer-links">{links}</ul>\n'
                    f'<p class="phone">{self.phone}</p>\n</footer>\n</body>\n</html>\n')
        return "".join(head) + "".join(body)

    def emit(self, url: str, lang: str, kind: str, text: str) -> None:
        self.out.resources[url] = Resource(200, dict(_HTML_UTF8), text.encode("utf-8"))
        self.out.page_langs[url] = lang
        self.out.page_kinds[url] = kind

    def pair_gold(self, u1: str, u2: str, s1: list, s2: list) -> None:
        """Record a gold pair and the sentence pairs of its shared paragraphs."""
        self.out.gold.append((u1, u2))
        pairs = []
        for a, b in zip([x for x in s1 if x is not None], [x for x in s2 if x is not None]):
            pairs.extend(zip(a, b))
        self.out.sentence_gold[(u1, u2)] = pairs

    def switch_for(self, lang: str, target: str | None) -> list | None:
        if not self.spec.language_switch or target is None:
            return None
        other = self.l2 if lang == self.l1 else self.l1
        return [(other, target)]

    # -- pages -------------------------------------------------------------------------

    def render_articles(self) -> None:
        for art in self.pairs:
            sents = {}
            for lang in (self.l1, self.l2):
                other = self.l2 if lang == self.l1 else self.l1
                # Hidden pages get no toggle or alternate pointing at them (nor from them,
                # so that both sides look like the pages of an untranslated article).
                target = None if art.hidden else art.urls[other]
                alternates = None
                if self.spec.hreflang_alternates and not art.hidden:
                    alternates = {self.l1: art.urls[self.l1], self.l2: art.urls[self.l2]}
                html_, sents[lang] = self.article_html(art, lang, self.side[lang],
                                                       self.switch_for(lang, target), alternates)
                self.emit(art.urls[lang], lang, "article", html_)
            self.pair_gold(art.urls[self.l1], art.urls[self.l2], sents[self.l1], sents[self.l2])

        for art in self.untranslated:
            (lang,) = art.urls
            other = self.l2 if lang == self.l1 else self.l1
            # Real sites either drop the toggle or send it to the other home page.
            target = self.homes[other] if self.rng.random() < 0.5 else None
            html_, _ = self.article_html(art, lang, None, self.switch_for(lang, target), None)
            self.emit(art.urls[lang], lang, "untranslated", html_)

        for art in self.third:
            (lang,) = art.urls
            html_, _ = self.article_html(art, lang, None,
                                         [(self.l1, self.homes[self.l1])], None)
            self.emit(art.urls[lang], lang, "article", html_)

    def article_html(self, art: _Article, lang: str, side: int | None, switch, alternates):
        ui = _UI[lang]
        main, sents = _render_main(lang, art.plan, side, ui)
        title = art.titles[lang]
        parts = [f"<article>\n<h1>{_t(title)}</h1>\n", main, "</article>\n"]
        if self.spec.anchors:
            iso = "%04d-%02d-%02d" % art.plan.date
            parts.insert(1, f"<div class=\"meta\">{_t(ui['published'])} <time datetime=\"{iso}\">"
                            f'{_t(_date(lang, art.plan.date, ""))}</time></div>\n')
        related = [r for r in art.related
                   if lang in r.urls and not (r.hidden and lang == self.l2)]
        if art.short_side is not None and art.short_side == side and related:
            related = related[:-1]
        if related:
            items = "".join(f'<li><a href="{_href(r.urls[lang])}">{_t(r.titles[lang])}</a></li>'
                            for r in related)
            parts.append(f'<aside class="related"><h2>{_t(ui["related"])}</h2>'
                         f"<ul>{items}</ul></aside>\n")
        crumbs = None
        if lang in (self.l1, self.l2):
            crumbs = [(art.section.pages[lang][0], art.section.label[_LANG_COL[lang]])]
        html_ = self.page(lang, title, "".join(parts), switch=switch, alternates=alternates,
                          crumbs=crumbs)
        return html_, sents

    def render_indexes(self) -> None:
        for sec in self.sections:
            pool = _Pool(self.rng, self.place)
            extra = _sentence(self.rng, pool, _CUM_WEIGHTS[sec.product, self.spec.anchors])
            sents = {}
            for lang in (self.l1, self.l2):
                other = self.l2 if lang == self.l1 else self.l1
                label = sec.label[_LANG_COL[lang]]
                pages = sec.pages[lang]
                items = sec.items[lang]
                sents[lang] = []
                for p, url in enumerate(pages, 1):
                    intro = [self.ui(lang, "section_intro", s=label),
                             self.ui(lang, "section_more") if p == 1 else
                             self.ui(lang, "page", p=p, n=len(pages)) + ".",
                             extra.render(lang)]
                    chunk = items[(p - 1) * _PER_PAGE:p * _PER_PAGE]
                    lis = "".join(
                        f'<li><a href="{_href(a.urls[lang])}">{_t(a.titles[lang])}</a>'
                        + (f' <time datetime="{"%04d-%02d-%02d" % a.plan.date}">'
                           f'{_t(_date(lang, a.plan.date, ""))}</time>' if self.spec.anchors
                           else "") + "</li>" for a in chunk)
                    main = (f"<h1>{_t(label)}</h1>\n<p>{_t(' '.join(intro))}</p>\n"
                            f'<ul class="article-list">{lis}</ul>\n{self.pager(lang, pages, p)}')
                    other_pages = sec.pages[other]
                    target = other_pages[p - 1] if p <= len(other_pages) else other_pages[0]
                    alternates = None
                    if self.spec.hreflang_alternates and p <= len(other_pages):
                        alternates = {lang: url, other: target}
                    title = label if p == 1 else f"{label} – {self.ui(lang, 'page', p=p, n=len(pages))}"
                    self.emit(url, lang, "index", self.page(
                        lang, title, main, switch=self.switch_for(lang, target),
                        alternates=alternates))
                    sents[lang].append([intro])
            for p in range(min(len(sec.pages[self.l1]), len(sec.pages[self.l2]))):
                self.pair_gold(sec.pages[self.l1][p], sec.pages[self.l2][p],
                               sents[self.l1][p], sents[self.l2][p])

    def pager(self, lang: str, pages: list, p: int) -> str:
        if len(pages) == 1:
            return ""
        links = []
        if p > 1:
            links.append(f'<a rel="prev" href="{_href(pages[p - 2])}">{_t(self.ui(lang, "prev"))}</a>')
        window = sorted({1, len(pages), *range(max(1, p - 2), min(len(pages), p + 2) + 1)})
        for q in window:
            links.append(f"<span>{q}</span>" if q == p else
                         f'<a href="{_href(pages[q - 1])}">{q}</a>')
        if p < len(pages):
            links.append(f'<a rel="next" href="{_href(pages[p])}">{_t(self.ui(lang, "next"))}</a>')
        return f'<nav class="pager">{" ".join(links)}</nav>\n'

    def render_homes(self) -> None:
        pool = _Pool(self.rng, self.place)
        extra = [_sentence(self.rng, pool, _CUM_WEIGHTS[False, self.spec.anchors]) for _ in range(2)]
        sents = {}
        for lang in self.langs:
            intro = [self.ui(lang, "welcome"), self.ui(lang, "home_more")]
            body = [s.render(lang) for s in extra]
            main = [f"<h1>{_t(self.ui(lang, 'site'))}</h1>\n<p>{_t(' '.join(intro))}</p>\n"
                    f"<p>{_t(' '.join(body))}</p>\n"]
            sents[lang] = [intro, body]
            if lang == self.l3:
                listed = self.third
                switch = [(self.l1, self.homes[self.l1]), (self.l2, self.homes[self.l2])]
            else:
                listed = self.latest[lang]
                other = self.l2 if lang == self.l1 else self.l1
                # Home pages always link the other homes, so the site stays connected
                # when pages carry no language switch.
                switch = [(other, self.homes[other])]
                if self.l3:
                    switch.append((self.l3, self.homes[self.l3]))
            lis = "".join(f'<li><a href="{_href(a.urls[lang])}">{_t(a.titles[lang])}</a></li>'
                          for a in listed)
            main.append(f'<section class="latest"><h2>{_t(self.ui(lang, "latest"))}</h2>'
                        f"<ul>{lis}</ul></section>\n")
            if lang != self.l3:
                secs = "".join(f'<li><a href="{_href(s.pages[lang][0])}">'
                               f"{_t(s.label[_LANG_COL[lang]])}</a></li>" for s in self.sections)
                main.append(f'<section class="sections"><h2>{_t(self.ui(lang, "sections"))}</h2>'
                            f"<ul>{secs}</ul></section>\n")
            if lang == self.l1:
                main.append(self.home_extras(lang))
            alternates = None
            if self.spec.hreflang_alternates:
                alternates = dict(self.homes)
            self.emit(self.homes[lang], lang, "home",
                      self.page(lang, self.ui(lang, "home"), "".join(main), switch=switch,
                                alternates=alternates, sections_nav=lang != self.l3))
        self.pair_gold(self.homes[self.l1], self.homes[self.l2], sents[self.l1], sents[self.l2])

    def home_extras(self, lang: str) -> str:
        """Links only the langs[0] home page has: the staff area and bad resources."""
        items = [f'<li><a href="{_href(self.private[0])}">{_t(self.ui(lang, "staff"))}</a></li>']
        if self.spec.bad_pages:
            b = self.base(self.l1)
            for key, path in BAD_RESOURCES.items():
                if key != "redirect_loop_b":
                    items.append(f'<li><a href="{_href(b + path)}">{key.replace("_", " ")}</a></li>')
        return (f'<aside class="archives"><h2>{_t(self.ui(lang, "archives"))}</h2>'
                f'<ul>{"".join(items)}</ul></aside>\n')

    def render_about(self) -> None:
        pool = _Pool(self.rng, self.place)
        extra = [_sentence(self.rng, pool, _CUM_WEIGHTS[False, self.spec.anchors]) for _ in range(3)]
        sents = {}
        for lang in (self.l1, self.l2):
            other = self.l2 if lang == self.l1 else self.l1
            paras = [[self.ui(lang, "about_intro"), self.ui(lang, "about_team")],
                     [s.render(lang) for s in extra],
                     [self.ui(lang, "contact_line", T=self.phone, E=self.email)]]
            ids = ("", ' id="press"', ' id="legal"')
            main = f"<h1>{_t(self.ui(lang, 'about'))}</h1>\n" + "".join(
                f'<p{ids[i]}>{_t(" ".join(p))}</p>\n' for i, p in enumerate(paras))
            sents[lang] = paras
            alternates = dict(self.abouts) if self.spec.hreflang_alternates else None
            self.emit(self.abouts[lang], lang, "about", self.page(
                lang, self.ui(lang, "about"), main,
                switch=self.switch_for(lang, self.abouts[other]), alternates=alternates))
        self.pair_gold(self.abouts[self.l1], self.abouts[self.l2], sents[self.l1], sents[self.l2])

    def render_private(self) -> None:
        lang = self.l1
        pool = _Pool(self.rng, self.place)
        body = [self.ui(lang, "private"), self.ui(lang, "private_more")]
        body += [_sentence(self.rng, pool, _CUM_WEIGHTS[False, self.spec.anchors]).render(lang) for _ in range(2)]
        first, second = self.private
        main = (f"<h1>{_t(self.ui(lang, 'staff'))}</h1>\n<p>{_t(' '.join(body))}</p>\n"
                f'<ul><li><a href="{_href(second)}">{_t(self.ui(lang, "staff"))} 2</a></li></ul>\n')
        self.emit(first, lang, "private", self.page(lang, self.ui(lang, "staff"), main))
        main2 = f"<h1>{_t(self.ui(lang, 'staff'))} 2</h1>\n<p>{_t(' '.join(reversed(body)))}</p>\n"
        self.emit(second, lang, "private", self.page(lang, self.ui(lang, "staff"), main2))

    def render_server_files(self) -> None:
        """robots.txt on every host, and "/" redirecting to the home page where it is none."""
        hosts = sorted({urlsplit(u).netloc for u in self.out.page_langs})
        robots = b"User-agent: *\nDisallow: /private/\n"
        for h in hosts:
            self.out.resources[f"http://{h}/robots.txt"] = Resource(
                200, {"Content-Type": "text/plain; charset=utf-8"}, robots)
            root = f"http://{h}/"
            if root not in self.out.resources:
                target = next((u for u in self.homes.values() if urlsplit(u).netloc == h),
                              self.homes[self.l1])
                self.out.resources[root] = Resource(302, {"Location": target,
                                                          **_HTML_UTF8}, b"")
        self.hosts = hosts

    def render_bad(self) -> dict[str, str]:
        b = self.base(self.l1)
        urls = {k: b + p for k, p in BAD_RESOURCES.items()}
        rng = random.Random(self.spec.seed * 7919 + 17)
        res = self.out.resources

        raw = bytearray(rng.randbytes(30000))
        for i in range(0, len(raw), 97):  # make sure it holds NULs, as binary files do
            raw[i] = 0
        res[urls["binary"]] = Resource(200, dict(_HTML_UTF8), bytes(raw))

        pool = _Pool(rng, self.place)
        french = " ".join(_sentence(rng, pool, _CUM_WEIGHTS[False, True]).render("fr") for _ in range(8))
        french += " Les élèves ont découvert l'église et le château à Noël ; où était-ce déjà ?"
        latin1 = (f'<!DOCTYPE html><html lang="fr"><head><title>Ancien article</title></head>'
                  f"<body><main><h1>Été à {_PLACES[self.place][1]}</h1><p>{_t(french)}</p>"
                  f"</main></body></html>")
        res[urls["latin1_as_utf8"]] = Resource(200, dict(_HTML_UTF8),
                                               latin1.encode("latin-1", "replace"))
        cp = (f"<html><head><title>Communiqué</title></head><body><main><h1>Communiqué de "
              f"presse</h1><p>L’œuvre coûte 45 € ; c’est « une réussite ». {_t(french)}</p>"
              f"</main></body></html>")
        res[urls["cp1252_undeclared"]] = Resource(200, {"Content-Type": "text/html"},
                                                  cp.encode("cp1252", "replace"))

        page = res[self.pairs[0].urls[self.l1]].body
        cut = page.find(b"<a href", len(page) // 2)
        res[urls["truncated"]] = Resource(200, dict(_HTML_UTF8),
                                          page[:cut + 5] if cut > 0 else page[:len(page) // 2])

        chunk = b"".join(f"<p>{_t(_sentence(rng, pool, _CUM_WEIGHTS[False, True]).render(self.l1))}"
                         f"</p>\n".encode() for _ in range(40))
        reps = 6_300_000 // len(chunk) + 1
        huge = b"<!DOCTYPE html><html><head><title>Archive</title></head><body><main>\n" + \
            chunk * reps + b"</main></body></html>\n"
        res[urls["huge"]] = Resource(200, dict(_HTML_UTF8), huge)

        res[urls["redirect_loop"]] = Resource(302, {"Location": urls["redirect_loop_b"],
                                                    **_HTML_UTF8}, b"")
        res[urls["redirect_loop_b"]] = Resource(302, {"Location": urls["redirect_loop"],
                                                      **_HTML_UTF8}, b"")
        res[urls["server_error"]] = Resource(
            500, dict(_HTML_UTF8), b"<html><body><h1>500 Internal Server Error</h1></body></html>")
        res[urls["empty"]] = Resource(200, dict(_HTML_UTF8), b"")
        res[urls["trap"]] = _trap_page(b, "/cal/")
        # "not_found" is deliberately absent: lookup() answers None, the server 404.
        return urls

    def build(self) -> GeneratedSite:
        self.plan()
        self.render_articles()   # first, so gold_pairs[:n_pairs] are the article pairs
        self.render_homes()
        self.render_about()
        self.render_indexes()
        self.render_private()
        self.render_server_files()
        bad = self.render_bad() if self.spec.bad_pages else {}
        hidden = {a.urls[self.l2] for a in self.pairs if a.hidden}
        return GeneratedSite(
            spec=self.spec, port=self.port, resources=self.out.resources,
            start_url=self.homes[self.l1], gold_pairs=self.out.gold,
            page_langs=self.out.page_langs, sentence_gold=self.out.sentence_gold,
            hidden_urls=hidden, robots_disallowed=list(self.private), bad_urls=bad,
            page_kinds=self.out.page_kinds, hosts=self.hosts)


def _trap_page(base: str, path: str) -> Resource:
    """A calendar page linking one level deeper, forever (a classic crawler trap)."""
    depth = path.count("next/")
    prev = path[: -len("next/")] if depth else None
    links = f'<a rel="next" href="{_href(base + path + "next/")}">Next month</a>'
    if prev:
        links = f'<a rel="prev" href="{_href(base + prev)}">Previous month</a> ' + links
    body = (f"<!DOCTYPE html><html lang=\"en\"><head><title>Calendar, month {depth + 1}</title>"
            f"</head><body><main><h1>Calendar</h1><table><tr><th>Mon</th><th>Tue</th><th>Wed</th>"
            f"</tr><tr><td>1</td><td>2</td><td>3</td></tr></table><nav>{links}</nav></main>"
            f"</body></html>")
    return Resource(200, dict(_HTML_UTF8), body.encode())


def _validate(spec: SiteSpec) -> None:
    if spec.scheme not in SCHEMES:
        raise ValueError(f"unknown scheme {spec.scheme!r}; choose one of {SCHEMES}")
    langs = tuple(spec.langs)
    if len(langs) != 2 or langs[0] == langs[1]:
        raise ValueError(f"langs must be two different languages, got {spec.langs!r}")
    third = spec.third_lang if spec.n_third > 0 else None
    for lang in langs + ((third,) if third else ()):
        if lang not in SUPPORTED_LANGS:
            raise ValueError(f"unsupported language {lang!r}; the generator writes {SUPPORTED_LANGS}")
    if third in langs:
        raise ValueError("third_lang must differ from langs")
    if spec.n_pairs < 1:
        raise ValueError("n_pairs must be at least 1")


def generate_site(spec: SiteSpec, port: int) -> GeneratedSite:
    """Generate the whole site for ``spec``, with URLs on ``port`` (deterministic per seed)."""
    # The build allocates millions of small objects and no reference cycles worth
    # collecting; the cyclic collector's repeated passes over them cost ~30% at 20k pairs.
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        return _Builder(spec, port).build()
    finally:
        if was_enabled:
            gc.enable()
