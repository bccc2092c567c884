import Foundation
import Lyrics
import MPDProtocol
import MPDServer
import PlayerRuntime

/// Where the HTTP server gets lyrics: the composition root joins the user's files and NetEase's.
public protocol LyricsProvider: Sendable {
    func lyrics(for uri: String) async -> LyricsLookup
}

/// The HTTP server's routes (documented in the README): the page, the JSON API, the events, Cantata's paths.
/// Every player command goes through `ProtocolBridge` as an MPD command, so permissions and answers are MPD's.
public struct Router: Sendable {
    let bridge: ProtocolBridge
    let lyrics: any LyricsProvider
    let store: PlayerStore
    let passwords: [String: Permission]
    let defaultPermissions: Permission

    public init(bridge: ProtocolBridge, lyrics: any LyricsProvider) {
        self.bridge = bridge
        self.lyrics = lyrics
        store = bridge.server.store
        passwords = bridge.server.settings.passwords
        defaultPermissions = bridge.server.settings.defaultPermissions
    }

    /// The commands `POST /api/NAME` runs, with the query parameters they take (in order). Each is the MPD command
    /// of the same meaning, so its permission is MPD's.
    static let commands: [String: (command: String, parameters: [String])] = [
        "play": ("play", []), "pause": ("pause", ["state"]), "toggle": ("pause", []), "stop": ("stop", []),
        "next": ("next", []), "previous": ("previous", []), "seek": ("seekcur", ["position"]),
        "volume": ("setvol", ["value"]), "playid": ("playid", ["id"]),
        "random": ("random", ["state"]), "repeat": ("repeat", ["state"]), "single": ("single", ["state"]),
        "consume": ("consume", ["state"]),
    ]

    public func respond(to request: WebRequest) async -> WebResponse {
        guard let path = request.path, Self.safe(path) else { return .text(400, "Bad path\n") }
        let permission = permission(of: request)
        guard permission.contains(.read) else {
            var response = WebResponse.text(401, "A password with read permission is needed.\n")
            response.headers.append(("WWW-Authenticate", #"Basic realm="NoSignal", charset="UTF-8""#))
            return response
        }
        switch (request.method, path) {
        case ("GET", "/"), ("HEAD", "/"):
            return await page(permission)
        case ("GET", "/api/status"):
            return await status(permission).map { WebResponse.json($0) } ?? .error(502, "no status")
        case ("GET", "/api/queue"):
            return await queue(permission)
        case ("GET", "/api/lyrics"):
            return await lyricsResponse(request, permission)
        case ("GET", "/api/cover"):
            return await cover(uri: request.query["uri"], permission)
        case ("GET", "/api/events"):
            return events(permission)
        case ("POST", _) where path.hasPrefix("/api/"):
            return await command(String(path.dropFirst(5)), request, permission)
        case ("GET", _) where path.hasPrefix("/music/"):
            return await musicFolder(String(path.dropFirst(7)), permission)
        case (_, "/"), (_, "/api/status"), (_, "/api/queue"), (_, "/api/lyrics"), (_, "/api/cover"), (_, "/api/events"):
            return .text(405, "Method not allowed\n")
        default:
            return .text(404, "Not found\n")
        }
    }

    /// A decoded path is served only when it names nothing above where it starts: no `.` or `..` component, no
    /// backslash, no empty component (`//`) inside.
    static func safe(_ path: String) -> Bool {
        guard path.hasPrefix("/"), !path.contains("\\") else { return false }
        let components = path.dropFirst().split(separator: "/", omittingEmptySubsequences: false)
        for (index, component) in components.enumerated() {
            if component == "." || component == ".." { return false }
            if component.isEmpty && index != components.count - 1 { return false }
        }
        return true
    }

    /// MPD's rule for a client: the default permissions, or a password's (HTTP Basic, any user name; or a
    /// `password` parameter) when one is given and known.
    func permission(of request: WebRequest) -> Permission {
        var given = request.query["password"]
        if let authorization = request.header("authorization"), authorization.lowercased().hasPrefix("basic "),
           let data = Data(base64Encoded: String(authorization.dropFirst(6)).trimmingCharacters(in: .whitespaces)),
           let credentials = String(data: data, encoding: .utf8), let colon = credentials.firstIndex(of: ":") {
            given = String(credentials[credentials.index(after: colon)...])
        }
        if let given, let granted = passwords[given] { return granted }
        return defaultPermissions
    }

    // MARK: Status and queue

    /// `status` and `currentsong` as one object: every field as MPD names it (strings), plus typed `state`,
    /// `elapsed`, `duration`, `volume` and `song`.
    func status(_ permission: Permission) async -> [String: Any]? {
        guard let status = try? await bridge.run("status", permission: permission) else { return nil }
        var object: [String: Any] = [:]
        for pair in status.pairs { object[pair.key] = pair.value }
        object["state"] = status.first("state") ?? "stop"
        object["elapsed"] = status.first("elapsed").flatMap(Double.init) ?? 0
        object["duration"] = status.first("duration").flatMap(Double.init) ?? NSNull()
        object["volume"] = status.first("volume").flatMap(Int.init) ?? NSNull()
        if let song = try? await bridge.run("currentsong", permission: permission), !song.pairs.isEmpty {
            object["song"] = Self.song(song.pairs)
        } else {
            object["song"] = NSNull()
        }
        return object
    }

    /// A song block as JSON: `uri`, `title` (the file name when untagged), `artist`, `album`, `duration`, `id`,
    /// `pos`, and every tag as MPD names it under `tags`.
    static func song(_ pairs: some Collection<(key: String, value: String)>) -> [String: Any] {
        var object: [String: Any] = [:]
        var tags: [String: Any] = [:]
        for (key, value) in pairs {
            switch key {
            case "file": object["uri"] = value
            case "Id": object["id"] = Int(value) ?? NSNull()
            case "Pos": object["pos"] = Int(value) ?? NSNull()
            case "duration": object["duration"] = Double(value) ?? NSNull()
            case "Title", "Artist", "Album", "AlbumArtist", "Name":
                if object[key.lowercased()] == nil { object[key.lowercased()] = value }
                fallthrough
            default: tags[key] = value
            }
        }
        if object["title"] == nil, let uri = object["uri"] as? String {
            object["title"] = uri.split(separator: "/").last.map(String.init) ?? uri
        }
        object["tags"] = tags
        return object
    }

    func queue(_ permission: Permission) async -> WebResponse {
        do {
            return .json(Self.songs(try await bridge.run("playlistinfo", permission: permission).pairs))
        } catch {
            return Self.failure(error)
        }
    }

    /// A song list (`playlistinfo`, `lsinfo`) as JSON songs: each starts at its `file` line.
    static func songs(_ pairs: [(key: String, value: String)]) -> [[String: Any]] {
        var songs: [[String: Any]] = []
        var block: [(key: String, value: String)] = []
        for pair in pairs {
            if pair.key == "file", !block.isEmpty {
                songs.append(song(block))
                block = []
            }
            block.append(pair)
        }
        if !block.isEmpty { songs.append(song(block)) }
        return songs
    }

    static func failure(_ error: ProtocolBridge.Failure) -> WebResponse {
        let status = switch error.code {
        case ACKError.Code.permission.rawValue, ACKError.Code.password.rawValue: 403
        case ACKError.Code.noExist.rawValue: 404
        default: 400
        }
        return .error(status, error.message, code: error.code)
    }

    // MARK: Commands

    func command(_ name: String, _ request: WebRequest, _ permission: Permission) async -> WebResponse {
        guard let spec = Self.commands[name] else { return .text(404, "Not found\n") }
        var line = spec.command
        for parameter in spec.parameters {
            guard let value = request.query[parameter] else { continue }
            line += " " + ProtocolBridge.quote(value)
        }
        // A form on the page without JavaScript posts and is sent back to the page.
        let fromForm = request.header("content-type")?.hasPrefix("application/x-www-form-urlencoded") == true
            && request.header("accept")?.contains("text/html") == true
        do {
            _ = try await bridge.run(line, permission: permission)
            return fromForm ? .redirect(to: "/") : .json(["ok": true])
        } catch {
            return Self.failure(error)
        }
    }

    // MARK: Lyrics and covers

    /// `GET /api/lyrics?uri=URI` (the playing song without `uri`): the lyrics as JSON (`{"status": "found",
    /// "lyrics": …}`, or `instrumental`, `uncollected`, `none`), or with `format=lrc` as LRC text (404 without).
    func lyricsResponse(_ request: WebRequest, _ permission: Permission) async -> WebResponse {
        var uri = request.query["uri"]
        if uri == nil { uri = try? await bridge.run("currentsong", permission: permission).first("file") }
        guard let uri, !uri.isEmpty else { return .error(404, "No song") }
        guard (try? await bridge.run("lsinfo \(ProtocolBridge.quote(uri))", permission: permission)) != nil
                || uri.contains("://") else {
            return .error(404, "No such song")
        }
        let lookup = await lyrics.lyrics(for: uri)
        if request.query["format"] == "lrc" {
            guard case .found(let found) = lookup else { return .text(404, "No lyrics\n") }
            return .text(200, found.lrc(), type: "text/plain; charset=utf-8")
        }
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        var object: [String: Any] = ["uri": uri]
        switch lookup {
        case .found(let found):
            object["status"] = "found"
            if let data = try? encoder.encode(found), let value = try? JSONSerialization.jsonObject(with: data) {
                object["lyrics"] = value
            }
        case .instrumental: object["status"] = "instrumental"
        case .uncollected: object["status"] = "uncollected"
        case .none: object["status"] = "none"
        }
        return .json(object)
    }

    func cover(uri: String?, _ permission: Permission) async -> WebResponse {
        var uri = uri
        if uri == nil { uri = try? await bridge.run("currentsong", permission: permission).first("file") }
        guard let uri, let picture = await bridge.picture(uri: uri, permission: permission) else {
            return .text(404, "No cover\n")
        }
        return WebResponse(status: 200, contentType: picture.type ?? Self.imageType(picture.data), body: picture.data,
                           headers: [("Cache-Control", "max-age=300")])
    }

    static func imageType(_ data: [UInt8]) -> String {
        if data.starts(with: [0x89, 0x50, 0x4E, 0x47]) { return "image/png" }
        if data.starts(with: [0x47, 0x49, 0x46]) { return "image/gif" }
        if data.count > 11, data[8...11].elementsEqual("WEBP".utf8) { return "image/webp" }
        return "image/jpeg"
    }

    /// Cantata with an `http://` music folder: `GET /music/DIR/NAME.lyrics` is the lyrics of the song `DIR/NAME.*`
    /// (plain text), and `GET /music/DIR/cover.jpg` (or `folder`, `front`, `AlbumArt`; `.png`) the folder's cover.
    /// Songs are found through the database (`lsinfo`), never by opening the path, and the audio is not served.
    func musicFolder(_ relative: String, _ permission: Permission) async -> WebResponse {
        let name = relative.split(separator: "/").last.map(String.init) ?? ""
        let directory = relative.contains("/") ? String(relative[..<relative.lastIndex(of: "/")!]) : ""
        guard let dot = name.lastIndex(of: "."), dot != name.startIndex else { return .text(404, "Not found\n") }
        let base = String(name[..<dot])
        let suffix = name[name.index(after: dot)...].lowercased()
        guard let listing = try? await bridge.run("lsinfo \(ProtocolBridge.quote(directory))", permission: permission)
        else { return .text(404, "Not found\n") }
        let files = listing.pairs.filter { $0.key == "file" }.map(\.value)
        if suffix == "lyrics" {
            guard let song = files.first(where: { Self.stem(of: $0) == (directory.isEmpty ? base : directory + "/" + base) })
            else { return .text(404, "No such song\n") }
            guard case .found(let found) = await lyrics.lyrics(for: song) else { return .text(404, "No lyrics\n") }
            return .text(200, found.plainText() + "\n")
        }
        guard ["jpg", "jpeg", "png"].contains(suffix),
              ["cover", "folder", "front", "albumart"].contains(base.lowercased()), let song = files.first else {
            return .text(404, "Not found\n")
        }
        return await cover(uri: song, permission)
    }

    /// A URI without its file's extension.
    static func stem(of uri: String) -> String {
        guard let dot = uri.lastIndex(of: "."), !uri[dot...].contains("/") else { return uri }
        return String(uri[..<dot])
    }
}
