"""The plan: which pages the site has, complete (``site_plan.plan_site``). Pure, no I/O.

site_plan.py   every page: path, kind, template, subject, title, canonical, sitemap entry
paths.py       a url's public spelling, its page key and its output file; unsafe paths
links.py       the one rule that turns a url into a link or plain text
"""
