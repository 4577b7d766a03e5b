// Cloudflare Pages Function: the site's /session/* proxied to the session service, so the
// islands' cart, checkout and account work on the same origin as the pages.
//
// Put this file at functions/session/[[path]].js in the project you deploy (beside the output
// folder, not inside it), and set the variable SESSION_URL in the Pages project's settings to
// the service's address (https://session.example.vn). Start the service with
// `--allowed-origin https://<your site>`: Cloudflare reaches it from its own addresses.
export async function onRequest ({ request, env }) {
  if (!env.SESSION_URL) {
    return problem(503, 'session_not_configured', 'SESSION_URL is not set for this Pages project')
  }
  const url = new URL(request.url)
  const target = new URL(url.pathname.slice(url.pathname.indexOf('/session/')) + url.search, env.SESSION_URL)
  const headers = new Headers(request.headers)
  headers.set('X-Forwarded-Host', url.host)
  headers.set('X-Forwarded-Proto', url.protocol.replace(':', ''))
  headers.delete('Host')
  const init = { method: request.method, headers, redirect: 'manual' }
  // Bodies are small JSON (the service refuses more than 256 KiB): read whole, sent as is.
  if (!['GET', 'HEAD'].includes(request.method)) init.body = await request.arrayBuffer()
  try {
    // The answer as it is: status, JSON body and Set-Cookie (the cookies are the session).
    return await fetch(target, init)
  } catch {
    return problem(502, 'session_unreachable', 'the session service cannot be reached')
  }
}

function problem (status, code, detail) {
  const body = JSON.stringify({ type: 'about:blank', title: detail, status, detail, code })
  return new Response(body, { status, headers: { 'Content-Type': 'application/problem+json', 'Cache-Control': 'no-store' } })
}
