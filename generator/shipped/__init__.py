"""What the package ships besides its code: the default theme and the deploy recipes.

``site-templates`` and ``deploy`` here link to the repository's top-level folders, where
contributors edit them; a wheel or an sdist holds them as files of this package, so an installed
copy finds them here too, and an editable install reads the checkout's own files.
"""

from __future__ import annotations

from pathlib import Path

_HERE = Path(__file__).resolve().parent

#: The default theme (templates, partials, assets, islands).
THEME_DIR = (_HERE / "site-templates").resolve()
#: The deploy recipes: the nginx configurations, CI workflows, host and session files.
DEPLOY_DIR = (_HERE / "deploy").resolve()
