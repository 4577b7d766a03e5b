"""The render: one page of the plan into HTML with the theme (``pages.render_recorded``).

pages.py             the Jinja environment, its filters and globals, one page's render
fragments.py         ``{% fragment %}``: parts many pages share, rendered once per process
structured_data.py   JSON-LD: Organization, Product, BreadcrumbList, Article
theme.py             the theme's static files and their urls (with their digest)
"""
