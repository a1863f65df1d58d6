/// The page's style and its one script, served from the package: no build
/// step, nothing fetched from elsewhere (the pages' content security policy
/// allows only these). The script only adds to pages that work without it:
/// filtering the list as one types, and live updates, which read the event
/// stream and, at each event, fetch the page again and swap in its live regions.
enum AdminAssets {
    static let script = """
        "use strict";
        (() => {
          const search = document.getElementById("search");
          const origin = document.getElementById("origin-filter");
          function filter() {
            if (!search) return;
            const needle = search.value.trim().toLowerCase();
            const wanted = origin ? origin.value : "";
            for (const row of document.querySelectorAll("#flags tbody tr")) {
              row.hidden = !((!needle || row.dataset.search.includes(needle)) && (!wanted || row.dataset.origin === wanted));
            }
          }
          if (search) {
            search.addEventListener("input", filter);
            search.form.addEventListener("submit", (event) => { event.preventDefault(); filter(); });
          }
          if (origin) origin.addEventListener("change", filter);
          filter();
          if (!document.querySelector("[data-live]")) return;
          let running = false, again = false;
          async function refresh() {
            if (running) { again = true; return; }
            running = true;
            try {
              const response = await fetch(location.href, { credentials: "same-origin", cache: "no-store" });
              if (response.ok && response.headers.get("Content-Type").startsWith("text/html")) {
                const page = new DOMParser().parseFromString(await response.text(), "text/html");
                for (const region of document.querySelectorAll("[data-live]")) {
                  const fresh = page.getElementById(region.id);
                  if (fresh) region.replaceWith(document.importNode(fresh, true));
                }
                filter();
                document.body.dataset.updates = String(Number(document.body.dataset.updates || 0) + 1);
              }
            } catch (error) {
              console.warn("Stowage: could not refresh the page", error);
            } finally {
              running = false;
              if (again) { again = false; refresh(); }
            }
          }
          const events = new EventSource(document.body.dataset.base + "/events");
          events.addEventListener("open", () => { document.body.dataset.live = "connected"; });
          events.addEventListener("message", refresh);
        })();
        """

    static let css = """
        :root { color-scheme: light dark; --accent: #2f6fde; --muted: #777; --line: #8884; }
        body { font: 15px/1.45 system-ui, sans-serif; margin: 0; }
        header { display: flex; gap: 1em; align-items: center; padding: .6em 1.2em; border-bottom: 1px solid var(--line); }
        header .home { font-weight: 600; text-decoration: none; color: inherit; }
        header .who { margin-left: auto; color: var(--muted); }
        main { padding: 1em 1.2em 3em; max-width: 72em; }
        table { border-collapse: collapse; width: 100%; margin: .5em 0 1.5em; }
        th, td { text-align: left; padding: .35em .6em; border-bottom: 1px solid var(--line); vertical-align: top; }
        th { font-weight: 600; font-size: .9em; color: var(--muted); }
        code, pre, textarea { font: 13px/1.4 ui-monospace, monospace; }
        h1 code { font-size: inherit; }
        .filters { display: flex; gap: .6em; margin: .5em 0; }
        .filters input { flex: 1; }
        input, select, textarea, button { font: inherit; padding: .3em .5em; }
        textarea { width: 100%; box-sizing: border-box; }
        button { cursor: pointer; }
        form.inline { display: inline; margin-left: .5em; }
        .edits form { margin: 1em 0; padding: .8em; border: 1px solid var(--line); border-radius: 6px; }
        .edits label { display: block; margin-bottom: .4em; }
        .hint, .empty { color: var(--muted); font-size: .9em; margin: .3em 0 0; }
        .notice { background: #2a82; padding: .5em .8em; border-radius: 6px; }
        .error { background: #d332; padding: .5em .8em; border-radius: 6px; }
        .secret { color: var(--muted); font-style: italic; }
        .refused { color: #c33; }
        dl.state { display: grid; grid-template-columns: max-content 1fr; gap: .3em 1.2em; }
        dl.state dt { color: var(--muted); }
        dl.state dd { margin: 0; }
        pre.diff { margin: 0; white-space: pre-wrap; }
        pre.diff .added, ins { color: #1a7f37; text-decoration: none; }
        pre.diff .removed, del { color: #c33; }
        .sign-in { display: grid; gap: .6em; max-width: 22em; }
        .sign-in label { display: grid; }
        .or { color: var(--muted); margin: 0; }
        """
}
