import Foundation

extension FakeNetEaseServer {
    // MARK: Audio and covers

    /// `GET` of the audio URLs `song_url` hands out (`/<yyyyMMddHHmmss>/<md5>/jdymusic/obj/<id>.mp3`: 403 once
    /// older than `urlLifetime` or after `expireURLs()`, 404 when never issued; `Range: bytes=` answered with 206)
    /// and of cover pictures (`/<token>==/<picId>.jpg`, any `?param=` size).
    ///
    /// Faults match the path as requested and, for audio, also `/audio/<songID>`: the URL of a song's audio
    /// changes with every `song_url`, so a test names the song instead.
    func staticFile(_ request: HTTPRequest, _ modifier: inout Fault?) -> HTTPResponse {
        let parts = request.path.split(separator: "/").map(String.init)
        let isAudio = parts.count == 5 && parts[2] == "jdymusic" && parts[3] == "obj"
        var paths = [request.path]
        if isAudio, let songID = parts[4].split(separator: ".").first.flatMap({ Int($0) }) {
            paths.append(Self.audioAlias(songID))
        }
        if let fault = takeFault(paths) {
            if let replaced = Self.faultResponse(fault) { return replaced }
            modifier = fault
        }
        if isAudio {
            let issued = lock.withLock { issuedURLs[parts[1]] }
            guard let issued, parts[4].hasPrefix("\(issued.song).") else { return Self.plain(404, "Not Found") }
            guard !issued.expired, Date().timeIntervalSince(issued.issued) < options.urlLifetime else {
                return Self.plain(403, "Forbidden: the URL expired")
            }
            if issued.clip { return file(media.clip(issued.media), type: "audio/mpeg", request) }
            return file(media.audio(issued.media, flac: issued.flac), type: issued.flac ? "audio/flac" : "audio/mpeg",
                        request)
        }
        if let last = parts.last, last.hasSuffix(".jpg"), let id = Int64(last.dropLast(4)), pictures.contains(id),
           parts.count == 2, parts[0] == Shapes.picToken(id) + "==" {
            return file(media.cover(id), type: "image/jpeg", request)
        }
        return Self.plain(404, "Not Found")
    }

    /// The path faults name to hit one song's audio, whatever URL it was issued under.
    public static func audioAlias(_ songID: Int) -> String { "/audio/\(songID)" }

    static func plain(_ status: Int, _ text: String) -> HTTPResponse {
        HTTPResponse(status: status, headers: [("Content-Type", "text/plain")], body: Array(text.utf8))
    }

    private func file(_ path: String, type: String, _ request: HTTPRequest) -> HTTPResponse {
        guard let data = FileManager.default.contents(atPath: path) else { return Self.plain(404, "Not Found") }
        let bytes = Array(data)
        var headers = [("Content-Type", type), ("Accept-Ranges", "bytes")]
        if let range = request.header("range"), range.hasPrefix("bytes=") {
            let bounds = range.dropFirst(6).split(separator: "-", omittingEmptySubsequences: false)
            let start = Int(bounds.first ?? "") ?? 0
            let end = min(bytes.count - 1, bounds.count > 1 ? Int(bounds[1]) ?? bytes.count - 1 : bytes.count - 1)
            guard start < bytes.count, start <= end else {
                return HTTPResponse(status: 416, headers: [("Content-Range", "bytes */\(bytes.count)")])
            }
            headers.append(("Content-Range", "bytes \(start)-\(end)/\(bytes.count)"))
            return HTTPResponse(status: 206, headers: headers, body: Array(bytes[start...end]))
        }
        return HTTPResponse(status: 200, headers: headers, body: bytes)
    }

    // MARK: Control API over HTTP

    /// For scripts and `make demo` (the tests call the methods directly):
    /// - `POST /__fake/fault` `{"path":"/api/v3/song/detail","fault":"timeout|status|code|malformed|delay|disconnect|drop",
    ///   "value":405,"count":1}` (`value`: the status, the code, seconds of delay, or body bytes before the drop).
    ///   `path` is a prefix of the path as sent or of its `/api/…` form; `/audio/<songID>` names one song's audio
    ///   whatever URL it was issued under (`{"path":"/audio/5000011","fault":"drop","value":40000}`). Faults fire
    ///   in the order they were injected.
    /// - `POST /__fake/expire` → every audio URL issued so far answers 403 (`expireURLs()`)
    /// - `POST /__fake/qr` `{"key":"<unikey>" or "latest","state":"waiting|scanned|confirmed|expired"}`
    /// - `GET /__fake/log` → the request log as JSON; `POST /__fake/reset` clears the log and the faults
    /// - `GET /__fake/session` → the demo account's ready-made cookies (`MUSIC_U`, `__csrf`)
    /// - `GET /__fake/state` → what the account's edits, plays and dislikes did:
    ///   `{"liked":[id,…], "playlists":[{"id","name","trackIds":[…],"own":bool}], "scrobbles":[{"action","id",
    ///   "sourceId","time","source","when"}], "trashed":[id,…], "fmServed":[id,…], "fmBatches":[[id,…],…]}`
    ///   (`liked` newest first; `playlists` the own ones first, in `user_playlist` order, then the others by id;
    ///   `when` in milliseconds since the epoch; `fmServed` every id personal FM answered, `fmBatches` per answer)
    func control(_ request: HTTPRequest) -> HTTPResponse {
        let body = (try? JSONSerialization.jsonObject(with: Data(request.body))) as? [String: Any] ?? [:]
        func ok(_ object: Any = ["ok": true]) -> HTTPResponse {
            let data = (try? JSONSerialization.data(withJSONObject: object, options: [.withoutEscapingSlashes]))
                ?? Data("{}".utf8)
            return .json(String(decoding: data, as: UTF8.self))
        }
        func bad(_ message: String) -> HTTPResponse { .json(#"{"error":"\#(message)"}"#, status: 400) }
        switch (request.method, request.path) {
        case ("POST", "/__fake/fault"):
            guard let path = body["path"] as? String, let kind = body["fault"] as? String else {
                return bad("need path and fault")
            }
            let value = Self.intValue(body["value"])
            let fault: Fault
            switch (kind, value) {
            case ("timeout", _): fault = .timeout
            case ("malformed", _), ("malformedJSON", _): fault = .malformedJSON
            case ("status", let value?): fault = .status(value)
            case ("code", let value?): fault = .code(value)
            case ("delay", _):
                guard let seconds = (body["value"] as? NSNumber)?.doubleValue else { return bad("delay needs seconds") }
                fault = .delay(seconds)
            case ("disconnect", _): fault = .disconnect
            case ("drop", let value?): fault = .dropBody(after: value)
            default:
                return bad("fault is timeout, status (value), code (value), malformed, delay (value), disconnect or drop (value)")
            }
            inject(fault, for: path, count: Self.intValue(body["count"]) ?? 1)
            return ok()
        case ("POST", "/__fake/qr"):
            let states: [String: QRState] = ["waiting": .waiting, "scanned": .scanned, "confirmed": .confirmed,
                                             "expired": .expired]
            guard let name = body["state"] as? String, let state = states[name] else { return bad("need state") }
            let requested = body["key"] as? String ?? "latest"
            guard let key = requested == "latest" ? qrCodeKeys.last : requested else { return bad("no QR key yet") }
            setQRState(state, for: key)
            return ok(["ok": true, "key": key])
        case ("GET", "/__fake/log"):
            return ok(requests.map { entry -> [String: Any] in
                ["method": entry.method, "path": entry.path, "scheme": entry.scheme.rawValue,
                 "apiPath": entry.apiPath, "params": entry.params, "cookies": entry.cookies,
                 "headers": entry.headers, "status": entry.status, "code": entry.code ?? NSNull()]
            })
        case ("POST", "/__fake/reset"):
            clearLog()
            clearFaults()
            return ok()
        case ("GET", "/__fake/session"):
            return ok(["MUSIC_U": Self.demoSession.musicU, "__csrf": Self.demoSession.csrf])
        case ("POST", "/__fake/expire"):
            expireURLs()
            return ok()
        case ("GET", "/__fake/state"):
            return ok(stateJSON())
        default:
            return .json(#"{"error":"unknown control path"}"#, status: 404)
        }
    }
}

extension FakeNetEaseServer {
    /// `GET /__fake/state`'s answer (see `control`).
    func stateJSON() -> [String: Any] {
        let own = ownPlaylistIDs
        let others = lock.withLock { self.playlists.keys.filter { !own.contains($0) }.sorted() }
        let listed = (own + others).compactMap { id -> [String: Any]? in
            guard let playlist = self.playlist(id) else { return nil }
            return ["id": playlist.id, "name": playlist.name, "trackIds": playlist.trackIDs, "own": own.contains(id)]
        }
        let logged = scrobbles.map { entry -> [String: Any] in
            ["action": entry.action, "id": entry.id, "sourceId": entry.sourceID, "time": entry.time,
             "source": entry.source ?? NSNull(), "when": Int64(entry.when.timeIntervalSince1970 * 1000)]
        }
        return ["liked": likedSongIDs, "playlists": listed, "scrobbles": logged, "trashed": trashedSongIDs,
                "fmServed": fmServedSongIDs, "fmBatches": fmServedBatches]
    }
}
