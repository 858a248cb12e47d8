"""``manage.py mcp_makemessages``: write or update the ``.po`` catalogues of the tool texts.

Examples::

    manage.py mcp_makemessages -l uk -l de             # base catalogue: every tool of every group
    manage.py mcp_makemessages -l uk --group catalog   # the catalog group's own catalogue
    manage.py mcp_makemessages --all --compile         # every existing locale, and write the .mo files
    manage.py mcp_makemessages --all --check           # CI: exit 1 when a .po is out of date

One entry per tool text, as :mod:`mcp_bridge.build.translation` reads them:
``msgctxt`` ``"title"``, ``"description"`` or ``"argument:<name>"``, ``msgid``
the tool name. The code's text is written as the extracted comment (``#.``),
so that translators see what they translate.

Updating keeps every existing translation, translator comment and flag. An
entry whose code text changed since the last run is flagged ``fuzzy`` (gettext
leaves fuzzy entries out of the ``.mo`` until a translator reviews them, as
after ``msgmerge``). A translated entry whose tool is gone becomes obsolete
(``#~``), or is dropped with ``--no-obsolete``.

Reading and writing ``.po`` files needs `polib <https://pypi.org/project/polib/>`_
(``pip install "django-mcp-bridge[i18n]"``); only this command uses it. ``--compile``
writes the ``.mo`` files with polib too, so no gettext binaries are needed;
``manage.py compilemessages`` works as well, where GNU gettext is installed.
"""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path
from typing import TYPE_CHECKING, Any

from django.conf import settings
from django.core.management.base import BaseCommand, CommandError
from django.utils.translation import to_language, to_locale

from mcp_bridge.base.errors import ToolSetError
from mcp_bridge.build.translation import DOMAIN, catalogue_domain, tool_texts
from mcp_bridge.toolset.registry import (
    UnknownEndpoint,
    check_groups,
    get_groups,
    get_toolset,
)

if TYPE_CHECKING:
    import polib

#: Flag of an entry whose code text changed since its translation was written.
FUZZY = "fuzzy"

_HEADER = (
    "MCP tool texts{scope}, read by mcp_bridge.\n"
    "msgctxt is the field (title, description, argument:<name>), msgid the tool name;\n"
    "the #. comment is the text in the code. Update with `manage.py mcp_makemessages`."
)


_TEMPLATE_METADATA = {
    "Project-Id-Version": "mcp_tools",
    "PO-Revision-Date": "YEAR-MO-DA HO:MI+ZONE",
    "Last-Translator": "FULL NAME <EMAIL@ADDRESS>",
    "Language-Team": "LANGUAGE <LL@li.org>",
}


def _words(comment: str) -> list[str]:
    # .po comments do not keep blank lines or line breaks through a write and a read.
    return comment.split()


def _import_polib() -> Any:
    try:
        import polib
    except ImportError as exc:
        raise CommandError(
            'mcp_makemessages reads and writes .po files with polib: pip install "django-mcp-bridge[i18n]" '
            "(or pip install polib)."
        ) from exc
    return polib


class Command(BaseCommand):
    help = (
        "Write or update the gettext catalogues (.po) of the MCP tool texts: a msgid for every "
        "title, description and argument description, keeping existing translations."
    )
    requires_system_checks: list[str] = []  # the command reports a broken group itself

    def add_arguments(self, parser: Any) -> None:
        parser.add_argument(
            "-l",
            "--locale",
            action="append",
            default=[],
            help="a locale to create or update (uk, de, pt_BR); repeatable",
        )
        parser.add_argument(
            "-a",
            "--all",
            action="store_true",
            help="update every locale that already has a directory in the locale directory",
        )
        parser.add_argument(
            "-g",
            "--group",
            action="append",
            default=[],
            help=f"write the per-group catalogue {DOMAIN}.<group>.po of this group (repeatable) "
            f"instead of the base catalogue {DOMAIN}.po of all groups",
        )
        parser.add_argument(
            "--locale-dir",
            help="where the <locale>/LC_MESSAGES directories are (default: LOCALE_PATHS[0])",
        )
        parser.add_argument(
            "--no-obsolete", action="store_true", help="drop the entries of tools that are gone"
        )
        parser.add_argument(
            "--compile", action="store_true", help="also write the .mo file of each catalogue"
        )
        parser.add_argument(
            "--check",
            action="store_true",
            help="write nothing; exit with status 1 when a catalogue is missing or out of date",
        )

    def handle(self, *args: Any, **options: Any) -> None:
        polib = _import_polib()
        locale_dir = self._locale_dir(options["locale_dir"])
        locales = self._locales(options["locale"], options["all"], locale_dir)
        groups = get_groups()
        try:
            check_groups(options["group"])
        except UnknownEndpoint as exc:
            raise CommandError(str(exc)) from exc
        targets: list[tuple[str | None, Iterable[str]]]
        if options["group"]:
            targets = [(group, [group]) for group in options["group"]]
        else:
            targets = [(None, list(groups))]

        stale = []
        for group, members in targets:
            entries = self._collect(members, groups)
            for locale in locales:
                path = locale_dir / locale / "LC_MESSAGES" / f"{catalogue_domain(group)}.po"
                status, po = self._update(
                    polib, path, locale, group, entries, options["no_obsolete"]
                )
                if options["check"]:
                    if status != "unchanged":
                        stale.append(
                            f"{path} ({status.replace('updated', 'out of date').replace('created', 'missing')})"
                        )
                    continue
                if status != "unchanged":
                    path.parent.mkdir(parents=True, exist_ok=True)
                    path.write_text(str(po) + "\n", encoding="utf-8")
                fuzzy = sum(1 for entry in po if FUZZY in entry.flags and not entry.obsolete)
                translated = len(po.translated_entries())
                self.stdout.write(
                    f"{path}: {status}; {translated}/{len(entries)} translated"
                    + (f", {fuzzy} fuzzy (their code text changed: review them)" if fuzzy else "")
                )
                if options["compile"]:
                    self._compile(po, path.with_suffix(".mo"))
        if stale:
            raise CommandError(
                "Tool-text catalogues out of date; run manage.py mcp_makemessages:\n  "
                + "\n  ".join(stale)
            )

    @staticmethod
    def _locale_dir(option: str | None) -> Path:
        if option:
            return Path(option)
        if not settings.LOCALE_PATHS:
            raise CommandError(
                "Where should the catalogues go? Set LOCALE_PATHS in the settings or pass --locale-dir."
            )
        return Path(settings.LOCALE_PATHS[0])

    @staticmethod
    def _locales(given: list[str], every: bool, locale_dir: Path) -> list[str]:
        if not given and not every:
            raise CommandError("Name the locales with --locale (e.g. -l uk -l de), or use --all.")
        # Accept language codes too (pt-br) and write the locale name gettext expects (pt_BR).
        locales = [to_locale(to_language(locale)) for locale in given]
        if every:
            found = sorted(p.parent.name for p in locale_dir.glob("*/LC_MESSAGES") if p.is_dir())
            if not found and not locales:
                raise CommandError(
                    f"--all found no <locale>/LC_MESSAGES directory in {locale_dir}; use --locale."
                )
            locales += found
        return list(dict.fromkeys(locales))

    @staticmethod
    def _collect(
        members: Iterable[str], groups: dict[str, list[str | None]]
    ) -> dict[tuple[str, str], list[str]]:
        """``{(msgctxt, msgid): [distinct code texts]}`` for the tools of ``members``, sorted by tool.

        A tool name met in several groups or versions is one entry (a translation
        applies to all of them); its distinct code texts are all kept for the comment.
        """
        failures = []
        by_tool: dict[str, dict[str, list[str]]] = {}
        for group in members:
            for version in groups[group]:
                try:
                    toolset = get_toolset(group, version)
                except ToolSetError as exc:
                    failures.append(str(exc))
                    continue
                for tool in toolset.tools:
                    fields = by_tool.setdefault(tool.name, {})
                    for text in tool_texts(tool):
                        sources = fields.setdefault(text.context, [])
                        if text.source and text.source not in sources:
                            sources.append(text.source)
        if failures:
            raise CommandError("\n".join(failures))
        return {
            (context, name): sources
            for name in sorted(by_tool)
            for context, sources in by_tool[name].items()
        }

    def _update(
        self,
        polib: Any,
        path: Path,
        locale: str,
        group: str | None,
        entries: dict[tuple[str, str], list[str]],
        no_obsolete: bool,
    ) -> tuple[str, polib.POFile]:
        """Merge ``entries`` into the catalogue at ``path``: ``("created"|"updated"|"unchanged", catalogue)``."""
        existed = path.exists()
        old = polib.pofile(str(path), wrapwidth=78) if existed else None
        po = polib.POFile(wrapwidth=78)
        po.header = (
            old.header
            if old is not None and old.header
            else _HEADER.format(
                scope=f" of API group {group!r}" if group else " of every API group"
            )
        )
        po.metadata = dict(old.metadata) if old is not None else {}
        # The fields `msgfmt --check` wants, with gettext's template values until a translator
        # or a translation tool fills them in; kept as they are after that.
        for key, value in _TEMPLATE_METADATA.items():
            po.metadata.setdefault(key, value)
        po.metadata.update(
            {
                "Language": locale,
                "MIME-Version": "1.0",
                "Content-Type": "text/plain; charset=UTF-8",
                "Content-Transfer-Encoding": "8bit",
            }
        )
        previous = {(entry.msgctxt, entry.msgid): entry for entry in old} if old is not None else {}
        for (context, msgid), sources in entries.items():
            comment = "\n\n".join(sources)
            entry = polib.POEntry(msgctxt=context, msgid=msgid, msgstr="", comment=comment)
            before = previous.pop((context, msgid), None)
            if before is not None:
                entry.msgstr = before.msgstr
                entry.tcomment = before.tcomment
                entry.flags = list(before.flags)
                # The msgid is a key, not the source text, so gettext cannot see that the text
                # changed: the comment holds the text the translation was made from.
                changed = before.comment and _words(before.comment) != _words(comment)
                if before.msgstr and changed and FUZZY not in entry.flags:
                    entry.flags.append(FUZZY)
            po.append(entry)
        if not no_obsolete:
            for entry in previous.values():
                if entry.msgstr:
                    entry.obsolete = True
                    po.append(entry)
        if not existed:
            return "created", po
        current = path.read_text(encoding="utf-8")
        return ("unchanged" if current == str(po) + "\n" else "updated"), po

    def _compile(self, po: polib.POFile, mo_path: Path) -> None:
        binary = po.to_binary()
        if mo_path.exists() and mo_path.read_bytes() == binary:
            return
        mo_path.parent.mkdir(parents=True, exist_ok=True)
        mo_path.write_bytes(binary)
        self.stdout.write(f"{mo_path}: compiled")
