"""The write stage: the plan's pages rendered and put in place (``site.write_incremental``).

site.py          which pages to render, then an in-place commit or a whole new output
incremental.py   the last build's records, page fingerprints, template dependencies
page_bytes.py    the bytes a page's fingerprint is taken over
workers.py       forked render workers that write their pages' files
output.py        staging, the swap, assets, the marker; in_place.py, the in-place commit
target.py        the output folder a build may replace (checked before the crawl too)
lock.py          the build lock: one build at a time writes an output
mount_point.py   an output folder that is a mount point, updated by its contents
sitemap.py       sitemap.xml (or an index of numbered files) and robots.txt
host_files.py    the files static hosts read (_headers, .nojekyll), deploy configs
"""
