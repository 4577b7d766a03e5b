# Lighthouse scores of the demo store: home, a product, a category and an article page.
#   make lighthouse    build the demo into .lighthouse/output, serve it, score it, print a table;
#                      fails below SEO 100, Accessibility 100, Performance 95, Best Practices 95
#                      (a page whose first run misses on performance is scored twice more: median).
# Lighthouse 12 comes from the npm registry (package.json pins it, package-lock.json the rest)
# into node_modules/; the browser is Debian's Chromium. Nothing downloads at run time.
# Needs the Makefile's `install` target and $(BIN).

NPM              ?= npm
CHROMIUM_BIN     := /usr/bin/chromium
LIGHTHOUSE_DIR   := .lighthouse
LIGHTHOUSE_STAMP := node_modules/.lighthouse-installed

.PHONY: lighthouse lighthouse-deps chromium

chromium:
	@test -x $(CHROMIUM_BIN) || { \
		echo "installing chromium (apt-get)"; \
		apt-get update -qq >/dev/null && \
		DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends chromium \
			>/dev/null; \
	}

$(LIGHTHOUSE_STAMP): package.json package-lock.json
	$(NPM) ci --no-audit --no-fund --loglevel=error
	touch $@

lighthouse-deps: chromium $(LIGHTHOUSE_STAMP)

lighthouse: install lighthouse-deps
	rm -rf $(LIGHTHOUSE_DIR)/output
	$(BIN)/storefront build --out $(LIGHTHOUSE_DIR)/output --cache-dir $(LIGHTHOUSE_DIR)/cache
	$(BIN)/python scripts/lighthouse.py --out $(LIGHTHOUSE_DIR)/output \
		--reports $(LIGHTHOUSE_DIR)/reports
