import Foundation
import PlayerCore

/// Playlist files inside the music directory, read as MPD's playlist plugins read them (`src/playlist/plugins/`):
/// `m3u` (`M3uPlaylistPlugin`, or `ExtM3uPlaylistPlugin` when the file starts with `#EXTM3U`), `m3u8`, `pls`
/// (`PlsPlaylistPlugin`) and `xspf` (`XspfPlaylistPlugin`). Each entry is a song with what the file says of it (tags,
/// duration); `translate` then resolves its URI as `playlist_check_translate_song` does.
public enum MusicPlaylistFile {
    /// The suffixes MPD's playlist plugins claim in the music directory (those NoSignal reads).
    public static let suffixes: Set<String> = ["m3u", "m3u8", "pls", "xspf"]

    public static func suffix(of uri: String) -> String? {
        guard let dot = uri.lastIndex(of: "."), !uri[dot...].contains("/") else { return nil }
        let suffix = uri[uri.index(after: dot)...].lowercased()
        return suffixes.contains(suffix) ? suffix : nil
    }

    /// The entries of a file with `suffix`, URIs as written.
    public static func parse(_ data: [UInt8], suffix: String) -> [Song] {
        let text = Song.Tag.text(data)
        switch suffix {
        case "pls": return pls(text)
        case "xspf": return xspf(text)
        default: return m3u(text)
        }
    }

    /// Lines as MPD's `TextInputStream` gives them: split at LF, a trailing CR and other trailing blanks stripped.
    static func lines(_ text: String) -> [Substring] {
        // By bytes: a String splits "\r\n" as one character, never at its "\n".
        text.utf8.split(separator: 0x0A, omittingEmptySubsequences: false).map { bytes in
            let line = Substring(bytes)
            return line.utf8.last.map { $0 <= 0x20 } == true ? stripRight(line) : line
        }
    }

    static func stripRight(_ text: Substring) -> Substring {
        var end = text.utf8.endIndex
        while end > text.utf8.startIndex, text.utf8[text.utf8.index(before: end)] <= 0x20 {
            end = text.utf8.index(before: end)
        }
        return Substring(text.utf8[text.utf8.startIndex..<end])
    }

    static func stripLeft(_ text: Substring) -> Substring {
        Substring(text.utf8.drop { $0 <= 0x20 && $0 > 0 })
    }

    /// m3u: one URI per line, `#` lines and blank lines skipped. With `#EXTM3U` first, an `#EXTINF:SECONDS,NAME` line
    /// gives the next entry its duration (negative: 0) and its `Name` (`extm3u_parse_tag`).
    static func m3u(_ text: String) -> [Song] {
        let all = lines(text)
        let extended = all.first.map { $0.hasPrefix("#EXTM3U") } ?? false
        var songs: [Song] = []
        var pending: (tags: [Song.Tag], duration: Double?)?
        for raw in all {
            if extended, raw.hasPrefix("#EXTINF:") {
                pending = extInf(raw.dropFirst("#EXTINF:".count))
                continue
            }
            let line = stripLeft(raw)
            guard !line.isEmpty, !line.hasPrefix("#") else { continue }
            songs.append(Song(uri: String(line), tags: pending?.tags ?? [], duration: pending?.duration))
            pending = nil
        }
        return songs
    }

    /// `extm3u_parse_tag`: `strtol` digits, then a comma; nothing when malformed or when it says nothing.
    static func extInf(_ text: Substring) -> (tags: [Song.Tag], duration: Double?)? {
        let bytes = Array(text.utf8)
        var index = 0
        while index < bytes.count, bytes[index] == 0x20 || (bytes[index] >= 9 && bytes[index] <= 13) { index += 1 }
        var negative = false
        if index < bytes.count, bytes[index] == UInt8(ascii: "-") || bytes[index] == UInt8(ascii: "+") {
            negative = bytes[index] == UInt8(ascii: "-")
            index += 1
        }
        var value = 0
        let digits = index
        while index < bytes.count, bytes[index] >= 0x30, bytes[index] <= 0x39 {
            value = value.multipliedReportingOverflow(by: 10).partialValue &+ Int(bytes[index] - 0x30)
            index += 1
        }
        if index == digits { index = 0 }  // strtol read nothing: endptr is the start
        guard index < bytes.count, bytes[index] == UInt8(ascii: ",") else { return nil }
        let duration = negative || value < 0 ? 0 : value
        let name = stripLeft(Substring(String(decoding: bytes[(index + 1)...], as: UTF8.self)))
        if name.isEmpty && duration == 0 { return nil }
        return (name.isEmpty ? [] : [Song.Tag("Name", String(name))], Double(duration))
    }

    /// pls: `FileN`, with `TitleN` as the title and a positive `LengthN` as the duration, N from 1 to
    /// `NumberOfEntries` (`PlsPlaylistPlugin`, MPD's own parser since 0.23).
    static func pls(_ text: String) -> [Song] {
        var values: [String: String] = [:]
        var inPlaylist = false
        for raw in lines(text) {
            let line = stripLeft(raw)
            if line.hasPrefix("[") {
                inPlaylist = line.lowercased().hasPrefix("[playlist]")
                continue
            }
            guard inPlaylist, let equals = line.firstIndex(of: "=") else { continue }
            values[line[..<equals].lowercased()] = String(line[line.index(after: equals)...])
        }
        guard let count = values["numberofentries"].flatMap({ Int($0) }), count > 0 else { return [] }
        var songs: [Song] = []
        for n in 1...min(count, 65536) {
            guard let file = values["file\(n)"], !file.isEmpty else { continue }
            var tags: [Song.Tag] = []
            if let title = values["title\(n)"], !title.isEmpty { tags.append(Song.Tag("Title", title)) }
            let length = values["length\(n)"].flatMap { Int($0) }.flatMap { $0 > 0 ? Double($0) : nil }
            songs.append(Song(uri: file, tags: tags, duration: length))
        }
        return songs
    }

    /// xspf: each `<track>` of the `<trackList>` with its `<location>`; `<title>`, `<creator>` (Artist), `<album>`,
    /// `<trackNum>` as tags and `<duration>` (milliseconds) as the duration (`XspfPlaylistPlugin`).
    static func xspf(_ text: String) -> [Song] {
        var songs: [Song] = []
        var rest = Substring(text)
        while let open = rest.range(of: "<track>") ?? rest.range(of: "<track ") {
            rest = rest[open.upperBound...]
            guard let close = rest.range(of: "</track>") else { break }
            let track = rest[..<close.lowerBound]
            rest = rest[close.upperBound...]
            guard let location = element("location", in: track), !location.isEmpty else { continue }
            var tags: [Song.Tag] = []
            for (element, tag) in [("title", "Title"), ("creator", "Artist"), ("album", "Album"), ("trackNum", "Track")] {
                if let value = self.element(element, in: track), !value.isEmpty { tags.append(Song.Tag(tag, value)) }
            }
            let duration = element("duration", in: track).flatMap { Int($0) }.map { Double($0) / 1000 }
            songs.append(Song(uri: location, tags: tags, duration: duration))
        }
        return songs
    }

    static func element(_ name: String, in text: Substring) -> String? {
        guard let open = text.range(of: "<\(name)>"), let close = text[open.upperBound...].range(of: "</\(name)>")
        else { return nil }
        return unescapeXML(String(text[open.upperBound..<close.lowerBound]).trimmingCharacters(in: .whitespacesAndNewlines))
    }

    static func unescapeXML(_ text: String) -> String {
        guard text.contains("&") else { return text }
        return text.replacingOccurrences(of: "&lt;", with: "<").replacingOccurrences(of: "&gt;", with: ">")
            .replacingOccurrences(of: "&quot;", with: "\"").replacingOccurrences(of: "&apos;", with: "'")
            .replacingOccurrences(of: "&amp;", with: "&")
    }

    /// `playlist_check_translate_song`: a URL stays as it is (`file://` is a path); a path inside the music
    /// directory becomes relative to it, any other absolute path is dropped (only a local client may name files
    /// outside the database, and it may not through a playlist in the music directory); a relative one is taken
    /// from the playlist's folder, backslashes read as slashes, `.` and `..` resolved.
    public static func translate(_ uri: String, base: String, musicDirectory: String) -> String? {
        var uri = uri.replacingOccurrences(of: "\\", with: "/")
        if uri.hasPrefix("file://") { uri = String(uri.dropFirst("file://".count)) }
        if let colon = uri.range(of: "://"), !uri[..<colon.lowerBound].contains("/") { return uri }
        if uri.hasPrefix("/") {
            let root = musicDirectory.hasSuffix("/") ? musicDirectory : musicDirectory + "/"
            guard uri.hasPrefix(root) else { return nil }
            return normalized(String(uri.dropFirst(root.count)))
        }
        return normalized(base.isEmpty ? uri : base + "/" + uri)
    }

    /// `.` and empty segments dropped, `..` taking the one before; nil when `..` climbs out of the music directory.
    static func normalized(_ path: String) -> String? {
        var segments: [Substring] = []
        for segment in path.split(separator: "/", omittingEmptySubsequences: true) {
            if segment == "." { continue }
            if segment == ".." {
                guard !segments.isEmpty else { return nil }
                segments.removeLast()
                continue
            }
            segments.append(segment)
        }
        return segments.joined(separator: "/")
    }
}

extension MusicLibrary {
    /// The songs of the playlist file `uri` in the music directory, URIs translated, with what the file says of them;
    /// nil when `uri` is not such a file.
    public func playlistFile(uri: String) throws -> [Song]? {
        guard let suffix = MusicPlaylistFile.suffix(of: uri), !uri.hasPrefix("/"),
              let data = FileManager.default.contents(atPath: absolutePath(uri))
        else { return nil }
        let base = uri.lastIndex(of: "/").map { String(uri[..<$0]) } ?? ""
        return MusicPlaylistFile.parse([UInt8](data), suffix: suffix).compactMap { entry in
            guard let translated = MusicPlaylistFile.translate(entry.uri, base: base, musicDirectory: musicDirectory)
            else { return nil }
            var song = entry
            song.uri = translated
            return song
        }
    }
}
