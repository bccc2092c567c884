import Foundation
import Lyrics
import MPDProtocol

extension Router {
    /// `GET /`: the now-playing page. The server writes what is playing, its lyrics as text and the queue into the
    /// HTML, so the page is readable (and its buttons work, as forms) without JavaScript; the script then follows the
    /// player through `/api/events` and lights the lyric line of the moment. Everything it needs is in this one
    /// answer (no fonts or scripts from elsewhere).
    func page(_ permission: Permission) async -> WebResponse {
        let status = await status(permission)
        let song = status?["song"] as? [String: Any]
        let uri = song?["uri"] as? String
        var lyricsText = ""
        if let uri, case .found(let found) = await lyrics.lyrics(for: uri) { lyricsText = found.plainText() }
        var queueItems = ""
        if let queue = try? await bridge.run("playlistinfo", permission: permission) {
            queueItems = Self.songs(queue.pairs).prefix(Self.pageQueueLimit).map { item in
                let id = Self.escape((item["id"] as? Int).map(String.init) ?? "")
                let title = Self.escape(item["title"] as? String ?? "")
                return #"<li data-id="\#(id)"><form method="post" action="/api/playid"><input type="hidden" name="id" value="\#(id)"><button>\#(title)</button></form></li>"#
            }.joined(separator: "\n")
        }
        let title = (song?["title"] as? String) ?? "Nothing playing"
        let lines = lyricsText.split(separator: "\n", omittingEmptySubsequences: false)
            .map { #"<p class="line">\#(Self.escape(String($0)))</p>"# }.joined(separator: "\n")
        let html = Self.template
            .replacingOccurrences(of: "{{title}}", with: Self.escape(title))
            .replacingOccurrences(of: "{{artist}}", with: Self.escape(song?["artist"] as? String ?? ""))
            .replacingOccurrences(of: "{{album}}", with: Self.escape(song?["album"] as? String ?? ""))
            .replacingOccurrences(of: "{{state}}", with: Self.escape(status?["state"] as? String ?? "stop"))
            .replacingOccurrences(of: "{{lines}}", with: lines)
            .replacingOccurrences(of: "{{queue}}", with: queueItems)
        return WebResponse(status: 200, contentType: "text/html; charset=utf-8", body: Array(html.utf8),
                           headers: [("Cache-Control", "no-store")])
    }

    /// The page lists at most this many queued songs (the script shows them all).
    static let pageQueueLimit = 500

    static func escape(_ text: String) -> String {
        var escaped = ""
        for character in text {
            switch character {
            case "&": escaped += "&amp;"
            case "<": escaped += "&lt;"
            case ">": escaped += "&gt;"
            case "\"": escaped += "&quot;"
            case "'": escaped += "&#39;"
            default: escaped.append(character)
            }
        }
        return escaped
    }

    static let template = #"""
    <!doctype html>
    <html lang="en">
    <head>
    <meta charset="utf-8">
    <meta name="viewport" content="width=device-width, initial-scale=1">
    <title>{{title}} · NoSignal</title>
    <style>
    :root { color-scheme: dark; --accent: #e94560; --dim: #8b8b9a; }
    * { box-sizing: border-box; }
    body { margin: 0; font: 16px/1.5 system-ui, sans-serif; background: #14141c; color: #eee; }
    main { max-width: 60rem; margin: 0 auto; padding: 1rem; display: grid; gap: 1.5rem;
           grid-template-columns: minmax(0, 22rem) minmax(0, 1fr); }
    @media (max-width: 44rem) { main { grid-template-columns: minmax(0, 1fr); } }
    #cover { width: 100%; aspect-ratio: 1; object-fit: cover; border-radius: .75rem; background: #22222e; }
    h1 { font-size: 1.4rem; margin: .75rem 0 0; } #artist, #album { margin: 0; color: var(--dim); }
    #progress { display: flex; align-items: center; gap: .5rem; font-variant-numeric: tabular-nums; }
    #seek, #volume { flex: 1; accent-color: var(--accent); }
    #controls { display: flex; justify-content: center; gap: 1rem; margin: .5rem 0; }
    #controls button { display: flex; align-items: center; background: none; border: 0; color: #eee; cursor: pointer; padding: .25rem .75rem; }
    #volume-row { display: flex; align-items: center; gap: .5rem; color: var(--dim); }
    #lyrics { max-height: 70vh; overflow-y: auto; overflow-x: hidden; scroll-behavior: smooth; padding: 30vh 0; mask-image:
              linear-gradient(transparent, #000 15%, #000 85%, transparent); }
    .line { margin: 0; padding: .35rem .5rem; border-radius: .4rem; color: var(--dim); cursor: pointer;
            transition: color .2s, transform .2s; transform-origin: left; }
    .line.current { color: #fff; transform: scale(1.06); }
    .line .translation, .line .romanization { font-size: .85em; color: var(--dim); }
    .line.current .translation { color: #ccc; }
    .word { transition: color .1s; } .line.current .word { color: #aaa; } .line.current .word.sung { color: var(--accent); }
    #queue ol { padding-left: 1.5rem; } #queue li.current button { color: var(--accent); font-weight: 600; }
    #queue form { margin: 0; } #queue button { background: none; border: 0; color: inherit; font: inherit; cursor: pointer;
                  text-align: left; padding: .15rem 0; }
    #status-line { color: var(--dim); font-size: .9rem; }
    </style>
    </head>
    <body>
    <main>
    <section id="now">
      <img id="cover" src="/api/cover" alt="">
      <h1 id="title">{{title}}</h1>
      <p id="artist">{{artist}}</p>
      <p id="album">{{album}}</p>
      <p id="status-line">State: <span id="state">{{state}}</span></p>
      <div id="progress"><span id="elapsed">0:00</span><input id="seek" type="range" min="0" max="1000" value="0" aria-label="Position"><span id="duration">0:00</span></div>
      <form id="controls" method="post">
        <button id="previous" formaction="/api/previous" aria-label="Previous"><svg viewBox="0 0 24 24" width="28" height="28" aria-hidden="true"><path fill="currentColor" d="M6 5h2v14H6zM20 5v14L9 12z"/></svg></button>
        <button id="toggle" formaction="/api/toggle" aria-label="Play or pause"><svg viewBox="0 0 24 24" width="32" height="32" aria-hidden="true"><path fill="currentColor" d="M4 5v14l9-7zM15 5h2v14h-2zM19 5h2v14h-2z"/></svg></button>
        <button id="next" formaction="/api/next" aria-label="Next"><svg viewBox="0 0 24 24" width="28" height="28" aria-hidden="true"><path fill="currentColor" d="M16 5h2v14h-2zM4 5v14l11-7z"/></svg></button>
      </form>
      <div id="volume-row"><span>Volume</span><input id="volume" type="range" min="0" max="100" aria-label="Volume"></div>
    </section>
    <section id="lyrics" aria-live="polite">
    {{lines}}
    </section>
    <section id="queue"><h2>Queue</h2><ol id="queue-list">
    {{queue}}
    </ol></section>
    </main>
    <script>
    "use strict";
    const $ = (id) => document.getElementById(id);
    const state = { status: null, at: 0, uri: null, lines: [], current: -2, seeking: false };
    const post = (path) => fetch(path, { method: "POST" });
    const clock = (s) => { s = Math.max(0, Math.floor(s)); return Math.floor(s / 60) + ":" + String(s % 60).padStart(2, "0"); };

    // Milliseconds into the song now: the last status plus the time since, while playing.
    function position() {
      const s = state.status;
      if (!s) return 0;
      return s.elapsed * 1000 + (s.state === "play" ? performance.now() - state.at : 0);
    }

    // The line whose span holds t: the last line starting at or before t, unless its known end is past.
    function lineAt(t) {
      let found = -1;
      for (let i = 0; i < state.lines.length && state.lines[i].start <= t; i++) found = i;
      if (found >= 0 && state.lines[found].end != null && t >= state.lines[found].end) return -1;
      return found;
    }

    function applyStatus(s) {
      state.status = s;
      state.at = performance.now();
      const song = s.song || {};
      $("title").textContent = song.title || "Nothing playing";
      $("artist").textContent = song.artist || "";
      $("album").textContent = song.album || "";
      $("state").textContent = s.state;
      document.title = (song.title ? song.title + " · " : "") + "NoSignal";
      if (s.volume != null && document.activeElement !== $("volume")) $("volume").value = s.volume;
      $("duration").textContent = clock(s.duration || (song.duration || 0));
      for (const li of document.querySelectorAll("#queue-list li")) li.classList.toggle("current", li.dataset.id === String(song.id));
      if ((song.uri || null) !== state.uri) {
        state.uri = song.uri || null;
        if (state.uri) $("cover").src = "/api/cover?uri=" + encodeURIComponent(state.uri);
        else $("cover").removeAttribute("src");
        loadLyrics(state.uri);
      }
    }

    async function loadLyrics(uri) {
      const box = $("lyrics");
      state.lines = []; state.current = -2;
      box.replaceChildren();
      if (!uri) return;
      let answer;
      try { answer = await (await fetch("/api/lyrics?uri=" + encodeURIComponent(uri))).json(); } catch (e) { return; }
      if (uri !== state.uri) return;
      const note = (text) => { const p = document.createElement("p"); p.className = "line note"; p.textContent = text; box.append(p); };
      if (answer.status === "instrumental") return note("Instrumental");
      if (answer.status !== "found") return note("No lyrics");
      const lyrics = answer.lyrics;
      if (!lyrics.lines || lyrics.lines.length === 0) {
        for (const text of (lyrics.text || "").split("\n")) note(text);
        return;
      }
      state.lines = lyrics.lines;
      lyrics.lines.forEach((line, index) => {
        const element = document.createElement("div");
        element.className = "line";
        element.dataset.index = index;
        element.dataset.start = line.start;
        if (line.end != null) element.dataset.end = line.end;
        const text = document.createElement("div");
        text.className = "text";
        if (line.words && line.words.length) {
          for (const word of line.words) {
            const span = document.createElement("span");
            span.className = "word";
            span.dataset.start = word.start;
            span.textContent = word.text;
            text.append(span);
          }
        } else {
          text.textContent = line.text || "\u00a0";
        }
        element.append(text);
        for (const kind of ["translation", "romanization"]) {
          if (!line[kind]) continue;
          const extra = document.createElement("div");
          extra.className = kind;
          extra.textContent = line[kind];
          element.append(extra);
        }
        element.addEventListener("click", () => post("/api/seek?position=" + (line.start / 1000).toFixed(3)));
        box.append(element);
      });
    }

    function tick() {
      const t = position();
      const s = state.status;
      if (s) {
        $("elapsed").textContent = clock(t / 1000);
        const duration = s.duration || 0;
        if (!state.seeking && duration > 0) $("seek").value = Math.min(1000, Math.round(t / duration));
      }
      const index = lineAt(t);
      const elements = $("lyrics").querySelectorAll(".line[data-index]");
      if (index !== state.current) {
        elements.forEach((element, i) => element.classList.toggle("current", i === index));
        if (index >= 0 && elements[index]) elements[index].scrollIntoView({ block: "center", behavior: "smooth" });
        state.current = index;
      }
      if (index >= 0 && elements[index]) {
        for (const word of elements[index].querySelectorAll(".word")) word.classList.toggle("sung", Number(word.dataset.start) <= t);
      }
      requestAnimationFrame(tick);
    }

    async function loadQueue() {
      let songs;
      try { songs = await (await fetch("/api/queue")).json(); } catch (e) { return; }
      const list = $("queue-list");
      list.replaceChildren(...songs.map((song) => {
        const li = document.createElement("li");
        li.dataset.id = song.id;
        const button = document.createElement("button");
        button.textContent = song.title + (song.artist ? " — " + song.artist : "");
        button.addEventListener("click", () => post("/api/playid?id=" + song.id));
        li.append(button);
        if (state.status && state.status.song && state.status.song.id === song.id) li.classList.add("current");
        return li;
      }));
    }

    for (const name of ["previous", "toggle", "next"]) {
      $(name).addEventListener("click", (event) => { event.preventDefault(); post("/api/" + name); });
    }
    $("volume").addEventListener("change", (event) => post("/api/volume?value=" + event.target.value));
    $("seek").addEventListener("input", () => { state.seeking = true; });
    $("seek").addEventListener("change", (event) => {
      state.seeking = false;
      const duration = state.status ? state.status.duration || 0 : 0;
      post("/api/seek?position=" + (event.target.value * duration / 1000).toFixed(3));
    });
    const events = new EventSource("/api/events");
    events.addEventListener("status", (event) => applyStatus(JSON.parse(event.data)));
    events.addEventListener("queue", loadQueue);
    loadQueue();
    requestAnimationFrame(tick);
    </script>
    </body>
    </html>
    """#
}
