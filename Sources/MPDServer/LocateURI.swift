import MPDProtocol

/// MPD's `LocateUri` (`src/LocateUri.cxx`) as far as the protocol sees it: a URI argument is a `file://` URI or an
/// absolute path (a local file), a URI with a scheme (`http://…`, `netease://…`), or a path relative to the music
/// directory, which since MPD 0.24.11 must be safe (`uri_safe_local`, the path traversal fix) or the command answers
/// `ACK [2@0] {cmd} Bad relative path`. `lsinfo`, `listfiles` and `add` take the empty URI (the root; 0.24.12).
///
/// The commands that go through it in MPD 0.24.13: `lsinfo`, `listfiles`, `add`, `addid` (`SongLoader`),
/// `albumart`, `readpicture` and `readcomments` (`TagScanAny`), `load`, `listplaylist`, `listplaylistinfo`,
/// `searchplaylist`, `playlistlength`. Not `playlistadd` (a database selection), `listall`, `update` (which
/// has its own check and text, "Malformed path").
enum LocateURI {
    /// `uri_has_scheme`: something before a `://`.
    static func hasScheme(_ uri: String) -> Bool {
        guard let range = uri.utf8.firstRange(of: "://".utf8) else { return false }
        return range.lowerBound != uri.utf8.startIndex
    }

    /// Whether `uri` is taken as a path relative to the music directory (neither a local file nor a URL).
    static func isRelative(_ uri: String) -> Bool {
        guard uri.utf8.first != UInt8(ascii: "/") else { return false }
        if uri.utf8.count >= 7, uri.prefix(7).lowercased() == "file://" { return false }
        return !hasScheme(uri)
    }

    /// `uri_safe_local` (`src/util/UriUtil.cxx`): not empty, no leading, trailing or doubled slash, no `.` or `..`
    /// segment. Its segment check is MPD's: a segment of one to two dots (or none) followed by a slash or the end
    /// is refused; after any other segment start, the next slash is looked for from the following byte.
    static func isSafeLocal(_ uri: String) -> Bool {
        let bytes = Array(uri.utf8)
        let slash = UInt8(ascii: "/"), dot = UInt8(ascii: ".")
        var index = 0
        while true {
            var dots = 0
            while index < bytes.count, bytes[index] == dot {
                index += 1
                dots += 1
            }
            if dots <= 2, index == bytes.count || bytes[index] == slash { return false }
            guard index < bytes.count else { return true }
            var next = index + 1
            while next < bytes.count, bytes[next] != slash { next += 1 }
            guard next < bytes.count else { return true }
            index = next + 1
        }
    }

    /// Throws MPD's `Bad relative path` for a relative URI that is not safe; `allowEmpty` for the commands that
    /// take `""` for the root.
    static func check(_ uri: String, allowEmpty: Bool = false) throws(ACKError) {
        guard isRelative(uri), !(allowEmpty && uri.isEmpty), !isSafeLocal(uri) else { return }
        throw ACKError(.arg, "Bad relative path")
    }
}
