"""Render dependencies: what each page was rendered from, so a rebuild re-renders only what moved.

    inputs = RenderInputs.of(plan, env, theme_dir)     # shared inputs, digested once per build
    inputs.fingerprint(page)  -> str                   # the page's own inputs, digested
    BuildState.load(cache_dir) / state.save(cache_dir) # the records of the last build

A page's output is a function of: the page itself (its entity, and every card or summary it
lists - they are in ``Page.subject``), the site context every page shows (store, menus, category
tree, banners, custom variables), the site url, the templates its template reaches (``extends``,
``include``, ``import``), the theme's assets (their digests are in the urls), the generator's own
code, and the answers ``Links.href`` gave for the urls it showed (a page that links to a product
turns that link into text when the product goes away). The first six are digested into the
page's ``fingerprint``; the link answers are recorded as the urls asked, checked against the new
plan's links when any link answer changed at all.

A page whose fingerprint and link answers both match its record is not rendered again: its file
is taken over from the previous output. Anything unsure (no record, a template reached through a
dynamic name, a damaged state file) falls back to rendering, never to reuse.
"""

from __future__ import annotations

import hashlib
import pickle
import shutil
from array import array
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path

import jinja2
import jinja2.meta

from generator.plan.links import Links
from generator.plan.site_plan import Page, SitePlan
from generator.render.csp import meta_policies
from generator.render.theme import Theme, asset_files
from generator.source_digest import code_digest
from generator.write.page_bytes import ModelBytes, model_bytes

STATE_FILE = "pages.pickle"
#: Bumped whenever the stored shape changes; another value means a full render.
STATE_VERSION = 5


def _sha1() -> hashlib._Hash:
    return hashlib.sha1(usedforsecurity=False)


@dataclass(frozen=True, slots=True)
class PageRecord:
    """What one written page was rendered from."""

    fingerprint: str
    urls: bytes  # array('I') of indexes into BuildState.urls: the urls whose href it asked
    bytes: int

    def __reduce__(self) -> tuple[type[PageRecord], tuple[object, ...]]:
        # Pickled as a constructor call: the dataclass default (a state dict built through
        # ``fields()`` per record) made saving and loading the state of a large store take
        # most of a second. (``BuildState`` stores its records in columns besides.)
        return PageRecord, (self.fingerprint, self.urls, self.bytes)


#: What reading a pickle this build did not write may raise: a damaged file, or one an older
#: version wrote, whose classes have moved (ImportError, AttributeError) or changed shape.
_UNREADABLE = (
    OSError,
    EOFError,
    pickle.UnpicklingError,
    ValueError,
    TypeError,
    AttributeError,
    ImportError,
)


@dataclass(frozen=True, slots=True)
class BuildState:
    """The records of the last build whose output was swapped in."""

    out_dir: str  # the resolved output folder the records describe
    pages: Mapping[str, PageRecord]  # by page path
    urls: tuple[str, ...]  # every url any page asked ``href`` about
    linkable: tuple[str, ...]  # the page paths of that build (what ``Links`` knew)
    #: The files it wrote besides pages (assets, sitemap, host and public files, the marker).
    extra_files: tuple[str, ...] = ()
    #: What the theme's templates name, by source digest (``TemplateReferences``).
    template_references: References = field(default_factory=dict)
    #: The pages of that build linked at another page, their canonical (``Links.aliases``).
    aliases: tuple[tuple[str, str], ...] = ()

    def describes(self, out_dir: Path) -> bool:
        """Whether these are the records of ``out_dir`` (another folder's are of no use)."""
        return self.out_dir == str(out_dir.resolve())

    @staticmethod
    def load(cache_dir: Path) -> BuildState | None:
        path = cache_dir / STATE_FILE
        try:
            with path.open("rb") as handle:
                version, state = pickle.load(handle)
        except _UNREADABLE:
            return None
        if version != STATE_VERSION or not isinstance(state, BuildState):
            return None
        return state

    def __reduce__(self) -> tuple[object, tuple[object, ...]]:
        # The records in columns (paths, fingerprints, urls, sizes): pickling tuples of plain
        # values costs a fraction of a constructor call per record, and the state is saved at
        # the end of every build, where a rebuild's time counts.
        pages = self.pages
        columns = (
            tuple(pages),
            tuple(record.fingerprint for record in pages.values()),
            tuple(record.urls for record in pages.values()),
            array("q", [record.bytes for record in pages.values()]),
        )
        fields = (
            self.urls,
            self.linkable,
            self.extra_files,
            dict(self.template_references),
            self.aliases,
        )
        return _state_from_columns, (self.out_dir, columns, fields)

    @staticmethod
    def forget(cache_dir: Path) -> None:
        """No records: the output is about to change (a build that stops now renders whole)."""
        (cache_dir / STATE_FILE).unlink(missing_ok=True)

    def save(self, cache_dir: Path) -> None:
        cache_dir.mkdir(parents=True, exist_ok=True)
        path = cache_dir / STATE_FILE
        tmp = path.with_name(path.name + ".tmp")
        with tmp.open("wb") as handle:
            pickle.dump((STATE_VERSION, self), handle, protocol=pickle.HIGHEST_PROTOCOL)
        tmp.replace(path)


def _state_from_columns(
    out_dir: str,
    columns: tuple[tuple[str, ...], tuple[str, ...], tuple[bytes, ...], array[int]],
    fields: tuple[
        tuple[str, ...], tuple[str, ...], tuple[str, ...], References, tuple[tuple[str, str], ...]
    ],
) -> BuildState:
    paths, fingerprints, urls, sizes = columns
    pages = dict(zip(paths, map(PageRecord, fingerprints, urls, sizes), strict=True))
    asked, linkable, extra_files, references, aliases = fields
    return BuildState(out_dir, pages, asked, linkable, extra_files, references, aliases)


class UrlTable:
    """Interns the urls pages ask about, so each record stores small integers."""

    def __init__(self, known: Iterable[str] = ()) -> None:
        self.urls: list[str] = list(known)  # the last build's indexes stay valid
        self._ids = _Ids(self.urls)

    def ids(self, urls: Iterable[str]) -> bytes:
        # One pass in C; a url met for the first time takes the next index (``_Ids``).
        return array("I", map(self._ids.__getitem__, urls)).tobytes()


class _Ids(dict[str, int]):
    """Each url's index in ``urls``; a url not there yet is appended and takes the next one
    as it is looked up (a full build's pages each ask some url no page asked before)."""

    def __init__(self, urls: list[str]) -> None:
        super().__init__((url, index) for index, url in enumerate(urls))
        self._urls = urls

    def __missing__(self, url: str) -> int:
        ident = self[url] = len(self._urls)
        self._urls.append(url)
        return ident


def moved_urls(
    state: BuildState, links: Links, linkable: tuple[str, ...] | None = None
) -> frozenset[int]:
    """Indexes of the recorded urls whose href is not what the last build was told.

    ``Links`` answers from the pages it knows and their aliases alone: when those are the last
    build's (no page came or went, the common rebuild), no answer can have moved. ``linkable``,
    the page paths ``links`` was made from, tells that at once when they are the last build's
    very paths, in order."""
    if links.aliases == state.aliases and linkable is not None and linkable == state.linkable:
        return frozenset()
    before = Links(state.linkable, state.aliases)
    if before.page_keys() == links.page_keys() and before.aliases == links.aliases:
        return frozenset()
    return frozenset(
        index
        for index, url in enumerate(state.urls)
        if before.href(url) != links.href(url) or before.is_page(url) != links.is_page(url)
    )


def asks_about(record: PageRecord, moved: frozenset[int]) -> bool:
    if not moved:
        return False
    urls = array("I")
    urls.frombytes(record.urls)
    return not moved.isdisjoint(urls)


@dataclass(frozen=True, slots=True)
class RenderInputs:
    """The shared inputs of one build, digested: site context and url, code, templates."""

    shared: bytes
    by_template: Mapping[str, bytes]
    page_bytes: ModelBytes = field(default_factory=ModelBytes, compare=False, repr=False)
    #: Per template: the shared inputs and the template's digested, copied for each page.
    bases: dict[str, hashlib._Hash] = field(default_factory=dict, compare=False, repr=False)

    @staticmethod
    def of(
        plan: SitePlan,
        env: jinja2.Environment,
        theme_dir: Theme | Path,
        references: TemplateReferences | None = None,
    ) -> RenderInputs:
        theme = Theme.of(theme_dir)
        shared = _sha1()
        shared.update(plan.site_url.encode("utf-8"))
        shared.update(repr(meta_policies(env)).encode("utf-8"))  # the pages' <meta> policies
        shared.update(model_bytes(plan.site))
        shared.update(code_digest().encode())
        shared.update(assets_digest(theme).encode())
        shared.update(repr(theme.settings).encode("utf-8"))  # what templates see as `theme`
        names = {page.template for page in plan.pages}
        references = references or TemplateReferences(env)
        return RenderInputs(
            shared=shared.digest(),
            by_template={name: template_digest(env, name, references).encode() for name in names},
        )

    def fingerprint(self, page: Page) -> str:
        template = page.template
        base = self.bases.get(template)
        if base is None:  # the shared inputs and the template's, digested once per template
            base = self.bases[template] = _sha1()
            base.update(self.shared)
            base.update(self.by_template[template])
        digest = base.copy()
        digest.update(self.page_bytes(page))
        return digest.hexdigest()


# Taken now, as the generator is imported, not when a build gets to render: a generator
# upgraded in place while a build runs would otherwise have the new code's digest recorded
# for pages the old code rendered, and the next build would keep them.
code_digest()


#: The folder of ``--cache-dir`` where Jinja keeps compiled templates between builds.
COMPILED_TEMPLATES = "templates"


def compiled_templates(cache_dir: Path) -> Path:
    """Where this version of the generator keeps compiled templates (Jinja's bytecode cache,
    checked against each template's source when loaded). The compiled code depends on the
    generator too (its Jinja options and extensions), so each version has its own folder and
    those of other versions are removed."""
    parent = cache_dir / COMPILED_TEMPLATES
    folder = parent / code_digest()[:16]
    if not folder.is_dir():
        if parent.is_dir():
            for other in parent.iterdir():
                shutil.rmtree(other, ignore_errors=True)
        folder.mkdir(parents=True, exist_ok=True)
    return folder


#: What the theme's templates name (``TemplateReferences``), kept beside the compiled templates:
#: a build without records to take it from (``--full``, a first build) need not parse the
#: theme again (parsing every template is a visible share of a small store's whole build).
REFERENCES_FILE = "references.pickle"


def load_references(folder: Path) -> References:
    """What ``save_references`` kept in ``folder``; nothing when it cannot be read."""
    try:
        with (folder / REFERENCES_FILE).open("rb") as handle:
            found = pickle.load(handle)
    except _UNREADABLE:
        return {}
    return found if isinstance(found, dict) else {}


def save_references(folder: Path, references: References) -> None:
    path = folder / REFERENCES_FILE
    tmp = path.with_name(path.name + ".tmp")
    with tmp.open("wb") as handle:
        pickle.dump(dict(references), handle, protocol=pickle.HIGHEST_PROTOCOL)
    tmp.replace(path)


def assets_digest(theme_dir: Theme | Path) -> str:
    digest = _sha1()
    for published, source in asset_files(theme_dir):
        digest.update(published.as_posix().encode())
        digest.update(source.read_bytes())
    return digest.hexdigest()


def template_digest(
    env: jinja2.Environment, name: str, references: TemplateReferences | None = None
) -> str:
    """The sources of ``name`` and every template it reaches; a dynamic name (a variable in
    ``include``) makes it depend on the whole theme. ``references`` keeps what each template
    refers to across calls (and builds), so a theme's partials are parsed once at most."""
    digest = _sha1()
    for used in sorted(templates_reached(env, name, references)):
        source = _source(env, used)
        text = "\0missing" if source is None else source
        digest.update(f"{used}\0{text}\0".encode())
    return digest.hexdigest()


def templates_reached(
    env: jinja2.Environment, name: str, references: TemplateReferences | None = None
) -> set[str]:
    known = references if references is not None else TemplateReferences(env)
    seen: set[str] = set()
    pending = [name]
    while pending:
        current = pending.pop()
        if current in seen:
            continue
        seen.add(current)
        found = known.of(current)
        if any(ref is None for ref in found):
            return set(env.list_templates())
        pending.extend(ref for ref in found if ref is not None)
    return seen


#: The templates a template's source names (None for a dynamic name), by the source's digest.
References = Mapping[str, tuple[str | None, ...]]


class TemplateReferences:
    """What each template names (``extends``, ``include``, ``import``; None for a dynamic
    name), worked out by parsing its source once: parsing a theme costs more than a small
    rebuild's whole render. Known by the digest of the source, so what the last build found
    (``known``, kept in its state) holds for every template not edited since; ``used`` is
    what this build needed, to keep for the next."""

    def __init__(self, env: jinja2.Environment, known: References | None = None) -> None:
        self._env = env
        self._known = known or {}
        self._by_name: dict[str, tuple[str | None, ...]] = {}
        self.used: dict[str, tuple[str | None, ...]] = {}

    def of(self, name: str) -> tuple[str | None, ...]:
        found = self._by_name.get(name)
        if found is not None:
            return found
        source = _source(self._env, name)
        if source is None:
            found = ()
        else:
            digest = hashlib.sha1(source.encode("utf-8"), usedforsecurity=False).hexdigest()
            found = self._known.get(digest)
            if found is None:
                found = _parsed_references(self._env, source)
            self.used[digest] = found
        self._by_name[name] = found
        return found


def _parsed_references(env: jinja2.Environment, source: str) -> tuple[str | None, ...]:
    """The templates ``source`` names; none when broken (rendering reports it, and the digest
    covers the broken file)."""
    try:
        return tuple(jinja2.meta.find_referenced_templates(env.parse(source)))
    except jinja2.TemplateSyntaxError:
        return ()


def _source(env: jinja2.Environment, name: str) -> str | None:
    try:
        return env.loader.get_source(env, name)[0] if env.loader else ""
    except jinja2.TemplateNotFound:
        return None
