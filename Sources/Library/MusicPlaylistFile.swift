import Foundation
import PlayerCore

/// Playlist files inside the music directory, read as MPD's playlist plugins read them (`src/playlist/plugins/`):
/// `m3u` (`M3uPlaylistPlugin`, or `ExtM3uPlaylistPlugin` when the file starts with `#EXTM3U`), `m3u8`, `pls`
/// (`PlsPlaylistPlugin`), `xspf` (`XspfPlaylistPlugin`) and `asx` (`AsxPlaylistPlugin`). Each entry is a song with what the file says of it (tags,
/// duration); `translate` then resolves its URI as `playlist_check_translate_song` does.
public enum MusicPlaylistFile {
    /// The suffixes MPD's playlist plugins claim in the music directory (those NoSignal reads).
    public static let suffixes: Set<String> = ["m3u", "m3u8", "pls", "xspf", "asx"]

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
        case "asx": return asx(text)
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

    /// xspf: each `<track>` with a `<location>`; `<title>`, `<creator>` (Artist), `<annotation>` (Comment), `<album>`
    /// and `<trackNum>` as tags in the file's order (`XspfPlaylistPlugin`: element names as written, no duration,
    /// and only the tags after the location: the plugin looks them up only once it has one).
    static func xspf(_ text: String) -> [Song] {
        entries(text, entry: "track", caseInsensitive: false) { name, attributes, value, song in
            guard name == "location" || !song.uri.isEmpty else { return }
            switch name {
            case "location": song.uri = value
            case "title": song.tags.append(Song.Tag("Title", value))
            case "creator": song.tags.append(Song.Tag("Artist", value))
            case "annotation": song.tags.append(Song.Tag("Comment", value))
            case "album": song.tags.append(Song.Tag("Album", value))
            case "trackNum": song.tags.append(Song.Tag("Track", value))
            default: break
            }
        }
    }

    /// asx: each `<entry>` with a `<ref href=…>`; `<author>` (Artist) and `<title>` as tags (`AsxPlaylistPlugin`:
    /// element and attribute names in any case).
    static func asx(_ text: String) -> [Song] {
        entries(text, entry: "entry", caseInsensitive: true) { name, attributes, value, song in
            switch name.lowercased() {
            case "ref": if let href = attribute("href", in: attributes) { song.uri = href }
            case "author": song.tags.append(Song.Tag("Artist", value))
            case "title": song.tags.append(Song.Tag("Title", value))
            default: break
            }
        }
    }

    /// The entries of an XML playlist: for each `<ENTRY>` element, its child elements in order (name, attributes,
    /// text) handed to `read`; an entry without a URI is dropped, empty values add no tag.
    static func entries(_ text: String, entry: String, caseInsensitive: Bool,
                        _ read: (String, Substring, String, inout Song) -> Void) -> [Song] {
        let options: String.CompareOptions = caseInsensitive ? [.caseInsensitive] : []
        var songs: [Song] = []
        var rest = Substring(text)
        while let open = rest.range(of: "<\(entry)", options: options) {
            rest = rest[open.upperBound...]
            guard let first = rest.first, first == ">" || first == " " || first.isNewline || first == "\t",
                  let close = rest.range(of: "</\(entry)>", options: options) else { continue }
            var block = rest[rest.index(after: rest.startIndex)..<close.lowerBound]
            rest = rest[close.upperBound...]
            if first != ">", let end = block.firstIndex(of: ">") { block = block[block.index(after: end)...] }
            var song = Song(uri: "")
            while let lt = block.firstIndex(of: "<") {
                block = block[block.index(after: lt)...]
                guard let gt = block.firstIndex(of: ">") else { break }
                let tag = block[..<gt]
                block = block[block.index(after: gt)...]
                guard let head = tag.first, head != "/", head != "!", head != "?" else { continue }
                let selfClosing = tag.hasSuffix("/")
                let body = selfClosing ? tag.dropLast() : tag
                let name = String(body.prefix { !$0.isWhitespace })
                let attributes = body.dropFirst(name.count)
                var value = ""
                if !selfClosing, let end = block.range(of: "</\(name)>", options: options) {
                    value = unescapeXML(String(block[..<end.lowerBound]).trimmingCharacters(in: .whitespacesAndNewlines))
                    block = block[end.upperBound...]
                }
                if value.isEmpty && name.lowercased() != "ref" { continue }
                read(name, attributes, value, &song)
            }
            if !song.uri.isEmpty { songs.append(song) }
        }
        return songs
    }

    /// The value of attribute `name` (any case) in an element's attribute text.
    static func attribute(_ name: String, in attributes: Substring) -> String? {
        guard let key = attributes.range(of: name + "=", options: .caseInsensitive) else { return nil }
        let rest = attributes[key.upperBound...]
        guard let quote = rest.first, quote == "\"" || quote == "'" else { return nil }
        let value = rest.dropFirst().prefix { $0 != quote }
        return unescapeXML(String(value))
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
