import Foundation
import Glibc

/// Snapcast's stream-plugin control script for NoSignal (`controlscript=` of a snapserver source): snapserver
/// starts it with `--stream=ID --snapcast-host=H --snapcast-port=P` and speaks JSON-RPC with it, one message per
/// line, on its standard input and output. It speaks MPD's protocol to NoSignal, so that every Snapcast app shows
/// what plays (title, artist, album, duration, cover) and controls it (play, pause, next, previous, seek, volume,
/// shuffle, repeat).
///
/// - Sent: `Plugin.Stream.Ready` once connected, then `Plugin.Stream.Player.Properties` whenever the player, volume,
///   options or queue change (an `idle` connection of its own) — with `metadata` when the song changed.
/// - Answered: `Plugin.Stream.Player.GetProperties`, `…Control` (`play`, `pause`, `playPause`, `stop`, `next`,
///   `previous`, `seek` by `offset`, `setPosition`), `…SetProperty` (`shuffle`, `loopStatus`, `volume`, `mute`).
/// The cover is `artUrl` on NoSignal's HTTP server when it answers, else the picture itself (`artData`).
public final class SnapcastControl: @unchecked Sendable {
    let target: MPDLineClient.Target
    let coverBase: String?
    private let lock = NSLock()
    private var commands: MPDLineClient?
    private var lastSong: String?
    private var volumeBeforeMute: Int?

    /// `coverBase`: the HTTP server's address (`http://host:6680`) for `artUrl`; nil to send `artData`.
    public init(environment: [String: String], host: String?, port: Int?, coverBase: String?) {
        target = MPDLineClient.Target.from(environment: environment, host: host, port: port)
        self.coverBase = coverBase
    }

    /// Runs until standard input ends (snapserver stops the stream).
    public func run() -> Int32 {
        Thread.detachNewThread { [self] in watch() }
        while let line = readLine(strippingNewline: true) {
            guard !line.isEmpty else { continue }
            handle(line)
        }
        return 0
    }

    // MARK: Requests from snapserver

    func handle(_ line: String) {
        guard let data = line.data(using: .utf8),
              let request = (try? JSONSerialization.jsonObject(with: data)) as? [String: Any] else {
            send(["jsonrpc": "2.0", "error": ["code": -32700, "message": "Parse error"], "id": NSNull()])
            return
        }
        let id = request["id"] ?? NSNull()
        let method = request["method"] as? String ?? ""
        let params = request["params"] as? [String: Any] ?? [:]
        do {
            switch method {
            case "Plugin.Stream.Player.GetProperties":
                send(["jsonrpc": "2.0", "id": id, "result": try properties(withMetadata: true)])
            case "Plugin.Stream.Player.Control":
                try control(params["command"] as? String ?? "", params["params"] as? [String: Any] ?? [:])
                send(["jsonrpc": "2.0", "id": id, "result": "ok"])
            case "Plugin.Stream.Player.SetProperty":
                try setProperties(params)
                send(["jsonrpc": "2.0", "id": id, "result": "ok"])
            default:
                send(["jsonrpc": "2.0", "id": id, "error": ["code": -32601, "message": "Method not found"]])
            }
        } catch {
            send(["jsonrpc": "2.0", "id": id, "error": ["code": -32603, "message": "\(error)"]])
        }
    }

    func control(_ command: String, _ params: [String: Any]) throws {
        switch command {
        case "play": _ = try mpd("play")
        case "pause": _ = try mpd("pause 1")
        case "playPause":
            let state = try mpd("status").first { $0.key == "state" }?.value
            _ = try mpd(state == "play" ? "pause 1" : "play")
        case "stop": _ = try mpd("stop")
        case "next": _ = try mpd("next")
        case "previous": _ = try mpd("previous")
        case "seek":
            let offset = Self.number(params["offset"]) ?? 0
            _ = try mpd("seekcur " + (offset >= 0 ? "+" : "") + String(offset))
        case "setPosition":
            _ = try mpd("seekcur " + String(max(0, Self.number(params["position"]) ?? 0)))
        default:
            throw MPDLineClient.Failure(description: "unknown command \(command)")
        }
    }

    func setProperties(_ params: [String: Any]) throws {
        if let shuffle = params["shuffle"] as? Bool { _ = try mpd("random \(shuffle ? 1 : 0)") }
        switch params["loopStatus"] as? String {
        case "none": _ = try mpd("repeat 0"); _ = try mpd("single 0")
        case "track": _ = try mpd("repeat 1"); _ = try mpd("single 1")
        case "playlist": _ = try mpd("repeat 1"); _ = try mpd("single 0")
        default: break
        }
        if let volume = Self.number(params["volume"]) { _ = try mpd("setvol \(min(100, max(0, Int(volume))))") }
        if let mute = params["mute"] as? Bool {
            if mute {
                let current = try mpd("status").first { $0.key == "volume" }.flatMap { Int($0.value) }
                if let current, current > 0 { volumeBeforeMute = current }
                _ = try mpd("setvol 0")
            } else if let volume = volumeBeforeMute {
                _ = try mpd("setvol \(volume)")
            }
        }
    }

    static func number(_ value: Any?) -> Double? {
        switch value {
        case let number as NSNumber: number.doubleValue
        case let text as String: Double(text)
        default: nil
        }
    }

    // MARK: Properties

    /// MPRIS-style properties from `status` (and `currentsong` for the metadata).
    func properties(withMetadata: Bool) throws -> [String: Any] {
        let status = Dictionary(try mpd("status").map { ($0.key, $0.value) }, uniquingKeysWith: { first, _ in first })
        var result: [String: Any] = [
            "playbackStatus": ["play": "playing", "pause": "paused"][status["state"] ?? ""] ?? "stopped",
            "loopStatus": status["repeat"] != "1" ? "none" : (status["single"] == "1" ? "track" : "playlist"),
            "shuffle": status["random"] == "1",
            "volume": Int(status["volume"] ?? "") ?? 100,
            "mute": status["volume"] == "0",
            "rate": 1.0,
            "position": Double(status["elapsed"] ?? "") ?? 0,
            "canGoNext": true, "canGoPrevious": true, "canPlay": true, "canPause": true,
            "canSeek": status["duration"] != nil, "canControl": true,
        ]
        if withMetadata { result["metadata"] = try metadata() }
        return result
    }

    func metadata() throws -> [String: Any] {
        let song = try mpd("currentsong")
        var values: [String: [String]] = [:]
        for (key, value) in song { values[key, default: []].append(value) }
        var metadata: [String: Any] = [:]
        if let file = values["file"]?.first {
            metadata["url"] = file
            metadata["trackId"] = values["Id"]?.first ?? file
        }
        metadata["title"] = values["Title"]?.first ?? values["Name"]?.first
            ?? values["file"]?.first.map { ($0 as NSString).lastPathComponent }
        if let artists = values["Artist"] { metadata["artist"] = artists }
        if let artists = values["AlbumArtist"] { metadata["albumArtist"] = artists }
        if let album = values["Album"]?.first { metadata["album"] = album }
        if let genres = values["Genre"] { metadata["genre"] = genres }
        if let track = values["Track"]?.first.flatMap({ Int($0.split(separator: "/").first ?? "") }) {
            metadata["trackNumber"] = track
        }
        if let duration = values["duration"]?.first.flatMap(Double.init) { metadata["duration"] = duration }
        if let file = values["file"]?.first {
            if let coverBase {
                var allowed = CharacterSet.urlQueryAllowed
                allowed.remove(charactersIn: "&=+?#")
                metadata["artUrl"] = "\(coverBase)/api/cover?uri=" + (file.addingPercentEncoding(withAllowedCharacters: allowed) ?? file)
            } else if let art = try? cover(file) {
                metadata["artData"] = art
            }
        }
        return metadata.filter { !($0.value is NSNull) }
    }

    /// The song's picture (`albumart`, else `readpicture`), base64 with its extension, for `artData`.
    func cover(_ uri: String) throws -> [String: Any]? {
        for command in ["albumart", "readpicture"] {
            var data = Data()
            var type: String?
            while true {
                guard let answer = try? mpd("\(command) \(MPDLineClient.quote(uri)) \(data.count)"),
                      let chunk = answer.first(where: { $0.key == "binary" }).flatMap({ Data(base64Encoded: $0.value) }),
                      let size = answer.first(where: { $0.key == "size" }).flatMap({ Int($0.value) }) else { break }
                type = type ?? answer.first { $0.key == "type" }?.value
                data += chunk
                if chunk.isEmpty || data.count >= size { break }
            }
            if !data.isEmpty {
                let ext = type == "image/png" || data.starts(with: [0x89, 0x50]) ? "png" : "jpg"
                return ["data": data.base64EncodedString(), "extension": ext]
            }
        }
        return nil
    }

    // MARK: Events from NoSignal

    /// Its own connection waits in `idle` and sends the properties after each change; a lost connection is made
    /// again every second.
    private func watch() {
        var announced = false
        while true {
            do {
                let idle = try MPDLineClient(target)
                if !announced {
                    send(["jsonrpc": "2.0", "method": "Plugin.Stream.Ready"])
                    announced = true
                }
                try pushProperties()
                while true {
                    _ = try idle.command("idle player mixer options playlist")
                    try pushProperties()
                }
            } catch {
                lock.withLock { commands = nil }
                Thread.sleep(forTimeInterval: 1)
            }
        }
    }

    private func pushProperties() throws {
        let song = try mpd("currentsong").first { $0.key == "file" }?.value
        let changed = lock.withLock { () -> Bool in
            defer { lastSong = song }
            return song != lastSong
        }
        send(["jsonrpc": "2.0", "method": "Plugin.Stream.Player.Properties",
              "params": try properties(withMetadata: changed)])
    }

    // MARK: Plumbing

    /// Runs a command on the shared command connection (made again when it was lost).
    func mpd(_ command: String) throws -> [(key: String, value: String)] {
        try lock.withLock {
            do {
                if commands == nil { commands = try MPDLineClient(target) }
                return try commands!.command(command)
            } catch let failure as MPDLineClient.Failure where failure.description.hasPrefix("ACK") {
                throw failure
            } catch {
                commands = try MPDLineClient(target)
                return try commands!.command(command)
            }
        }
    }

    private let output = NSLock()

    func send(_ message: [String: Any]) {
        guard let data = try? JSONSerialization.data(withJSONObject: message, options: [.withoutEscapingSlashes]) else {
            return
        }
        output.withLock {
            FileHandle.standardOutput.write(data + Data("\n".utf8))
        }
    }
}
