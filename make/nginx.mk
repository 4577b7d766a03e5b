# nginx for the deploy tests (tests/generator/test_deploy_nginx.py serves a build through the
# shipped deploy/nginx.conf). Debian's package, installed once; nothing to do when present.
# The Makefile includes this file; `test` depends on `nginx`.

NGINX_BIN := /usr/sbin/nginx

.PHONY: nginx
nginx:
	@test -x $(NGINX_BIN) || { \
		echo "installing nginx (apt-get)"; \
		apt-get update -qq >/dev/null && \
		DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends nginx \
			>/dev/null; \
	}
