import Glibc
import MPDProtocol
import PlayerCore

/// Evaluates a `FilterExpression` against songs in memory, with MPD's rules (`src/song/*Filter.cxx`): for the
/// queue (`playlistfind`, `playlistsearch`) and stored playlists (`searchplaylist`). The database translates
/// filters to SQL instead; both follow the rules documented on `FilterExpression`.
struct SongMatcher {
    let expression: FilterExpression
    /// `expression` with the needles of case-insensitive comparisons folded once (`matchesString` takes them so),
    /// not once per value.
    private let folded: FilterExpression
    /// Compiled once per pattern and case mode, not once per song.
    private let regexes: [StringMatch: Regex<AnyRegexOutput>]

    init(_ expression: FilterExpression) {
        // A client may nest `(!` thousands deep: walk the tree MPD would, not that one, for every song.
        let expression = expression.optimized()
        self.expression = expression
        func fold(_ e: FilterExpression) -> FilterExpression {
            switch e {
            case .tag(let selector, var match) where match.foldCase && match.kind != .regex:
                match.value = Self.fold(match.value)
                return .tag(selector, match)
            case .not(let inner): return .not(fold(inner))
            case .and(let all): return .and(all.map(fold))
            default: return e
            }
        }
        self.folded = fold(expression)
        var regexes: [StringMatch: Regex<AnyRegexOutput>] = [:]
        func collect(_ e: FilterExpression) {
            switch e {
            case .tag(_, let m) where m.kind == .regex:
                if let regex = try? Regex(m.value) {
                    regexes[m] = (m.foldCase ? regex.ignoresCase() : regex).dotMatchesNewlines()
                }
            case .not(let inner): collect(inner)
            case .and(let all): all.forEach(collect)
            default: break
            }
        }
        collect(expression)
        self.regexes = regexes
    }

    func matches(_ song: Song, priority: UInt8 = 0) -> Bool {
        withUnsafePointer(to: song) { matches(folded, $0, priority: priority) }
    }

    /// An item read where it is (the queue's buffer): the song's fields are read through the pointer, so matching
    /// does not copy the item, which retained and released its song's storage for each item of a long queue.
    func matches(queueItem item: UnsafePointer<Queue.Item>) -> Bool {
        let song = UnsafeRawPointer(item).advanced(by: Self.songOffset).assumingMemoryBound(to: Song.self)
        return matches(folded, song, priority: item.pointee.priority)
    }

    private static let songOffset = MemoryLayout<Queue.Item>.offset(of: \Queue.Item.song)!

    private func matches(_ expression: FilterExpression, _ song: UnsafePointer<Song>, priority: UInt8) -> Bool {
        switch expression {
        case .tag(let selector, let match):
            return matchesWithoutNegation(selector, match, song) != match.negated
        case .not(let inner):
            return !matches(inner, song, priority: priority)
        case .and(let all):
            return all.allSatisfy { matches($0, song, priority: priority) }
        case .base(let directory):
            return directory.isEmpty || song.pointee.uri == directory || song.pointee.uri.hasPrefix(directory + "/")
        case .modifiedSince(let time):
            return (song.pointee.lastModified ?? Int64.min) >= time
        case .addedSince(let time):
            return (song.pointee.added ?? Int64.min) >= time
        case .audioFormat(let pattern):
            guard let format = song.pointee.audioFormat.flatMap(Self.parseFormat) else { return false }
            return pattern.matches(sampleRate: format.rate, sampleFormat: format.format, channels: format.channels)
        case .priority(let atLeast):
            return Int(priority) >= atLeast
        case .nothing:
            return false
        }
    }

    /// `TagSongFilter::Match` before negation: any value of the tag (or of its fallbacks when the song lacks it)
    /// matches; a song without the tag matches an empty value. Values are compared on the song's packed bytes.
    private func matchesWithoutNegation(_ selector: TagSelector, _ match: StringMatch,
                                        _ song: UnsafePointer<Song>) -> Bool {
        switch selector {
        case .file:
            return matchesString(song.pointee.uri, match)
        case .any:
            return song.pointee.packedTags.bytes.withUnsafeBufferPointer { all in
                var index = 0
                while index < all.count, PackedTags.field(all, &index) != nil, let value = PackedTags.field(all, &index) {
                    if matchesValue(value, match) { return true }
                }
                return false
            }
        case .tag(let tag):
            let own = scan(song, tag, match)
            if own.has { return own.matched }
            for fallback in Self.fallbacks(of: tag) where scan(song, fallback, match).matched {
                return true
            }
            return match.value.isEmpty
        }
    }

    /// Whether the tags hold tag `name`, and whether one of its values matches. A plain loop over the bytes: with a
    /// closure per tag, retaining what it captured cost more than the comparisons.
    private func scan(_ song: UnsafePointer<Song>, _ name: TagName, _ match: StringMatch) -> (has: Bool, matched: Bool) {
        let wanted = name.canonicalUTF8
        return song.pointee.packedTags.bytes.withUnsafeBufferPointer { all in
            var has = false
            var index = 0
            while index < all.count, let tagName = PackedTags.field(all, &index),
                  let value = PackedTags.field(all, &index) {
                guard Self.equal(tagName, wanted) else { continue }
                has = true
                if matchesValue(value, match) { return (true, true) }
            }
            return (has, false)
        }
    }

    private static func equal(_ a: UnsafeBufferPointer<UInt8>, _ b: UnsafeBufferPointer<UInt8>) -> Bool {
        a.count == b.count && (a.isEmpty || memcmp(a.baseAddress!, b.baseAddress!, a.count) == 0)
    }

    /// `matchesString` on a value's bytes: an ASCII value folds by lowering its letters as it is compared, so only
    /// a value with other characters (or a regular expression) is made a string.
    private func matchesValue(_ value: UnsafeBufferPointer<UInt8>, _ match: StringMatch) -> Bool {
        if match.kind == .regex || (match.foldCase && value.contains { $0 >= 0x80 }) {
            return matchesString(String(decoding: value, as: UTF8.self), match)
        }
        if let compared = match.value.utf8.withContiguousStorageIfAvailable({
            Self.compare(value, $0, match.kind, lowering: match.foldCase)
        }) {
            return compared
        }
        var needle = match.value
        return needle.withUTF8 { Self.compare(value, $0, match.kind, lowering: match.foldCase) }
    }

    /// `StringFilter::MatchWithoutNegation`, for a match from `folded` (a case-insensitive needle is folded).
    /// Bytes are compared, as MPD compares them (`strcmp`, `strstr`).
    private func matchesString(_ value: String, _ match: StringMatch) -> Bool {
        if match.kind == .regex {
            guard let regex = regexes[match] else { return false }
            return (try? regex.firstMatch(in: value)) != nil
        }
        var value = match.foldCase ? Self.fold(value) : value
        var needle = match.value
        return value.withUTF8 { value in
            needle.withUTF8 { Self.compare(value, $0, match.kind, lowering: false) }
        }
    }

    /// `==`, `starts_with` or `contains` of `needle` in `value`; `lowering` lowers ASCII letters of the value.
    private static func compare(_ value: UnsafeBufferPointer<UInt8>, _ needle: UnsafeBufferPointer<UInt8>,
                                _ kind: StringMatch.Kind, lowering: Bool) -> Bool {
        func equal(at start: Int) -> Bool {
            for index in 0..<needle.count {
                var byte = value[start + index]
                if lowering, byte >= 0x41, byte <= 0x5A { byte |= 0x20 }
                if byte != needle[index] { return false }
            }
            return true
        }
        switch kind {
        case .equals: return value.count == needle.count && equal(at: 0)
        case .startsWith: return value.count >= needle.count && equal(at: 0)
        case .contains, .regex:
            guard needle.count <= value.count else { return false }
            for start in 0...(value.count - needle.count) where equal(at: start) { return true }
            return false
        }
    }

    /// `ApplyTagFallback` (`src/tag/Fallback.hxx`).
    static func fallbacks(of tag: TagName) -> [TagName] {
        switch tag {
        case .albumArtistSort: [.albumArtist, .artistSort, .artist]
        default: tag.fallback.map { [$0] } ?? []
        }
    }

    /// The canonical form of the `search` family (MPD 0.24's `IcuCanonicalize`), as the database compares.
    static func fold(_ s: String) -> String { CaseFolding.fold(s) }

    /// Compiles a pattern when the filter is parsed, so a bad one is an ACK as in MPD.
    static func validateRegex(_ pattern: String, _ caseless: Bool) throws(ACKError) {
        do {
            _ = try Regex(pattern)
        } catch {
            throw ACKError(.arg, "Error in regex at offset 0: \(error)")
        }
    }

    /// `samplerate:bits:channels` of a known song format.
    private static func parseFormat(_ text: String)
        -> (rate: UInt32, format: AudioFormatMatch.SampleFormat, channels: UInt8)?
    {
        let parts = text.split(separator: ":")
        guard parts.count == 3, let channels = UInt8(parts[2]) else { return nil }
        if parts[0].hasPrefix("dsd"), let n = UInt32(parts[0].dropFirst(3)) {
            return (n * 44100 / 8, .dsd, channels)
        }
        guard let rate = UInt32(parts[0]) else { return nil }
        let format = parts[1] == "24_3" ? .s24 : AudioFormatMatch.SampleFormat(rawValue: String(parts[1]))
        guard let format else { return nil }
        return (rate, format, channels)
    }

    /// `sort KEY` of `playlistfind`/`playlistsearch` (0.24): stable, by the first value of the tag (with the
    /// `*Sort` fallbacks), `Last-Modified`, `Added`, or priority (lowest first, as MPD 0.24 sorts it); `-KEY` reverses.
    static func sorted<T>(_ values: [T], by spec: SortSpec, item: (T) -> Queue.Item) -> [T] {
        func less(_ a: Queue.Item, _ b: Queue.Item) -> Bool {
            switch spec.key {
            case .tag(let tag):
                return key(a.song, tag).utf8.lexicographicallyPrecedes(key(b.song, tag).utf8)
            case .lastModified:
                return (a.song.lastModified ?? 0) < (b.song.lastModified ?? 0)
            case .added:
                return (a.song.added ?? 0) < (b.song.added ?? 0)
            case .priority:
                return a.priority < b.priority
            }
        }
        return values.enumerated().sorted { x, y in
            let a = item(x.element), b = item(y.element)
            let (first, second) = spec.descending ? (b, a) : (a, b)
            if less(first, second) { return true }
            if less(second, first) { return false }
            return x.offset < y.offset
        }.map(\.element)
    }

    private static func key(_ song: Song, _ tag: TagName) -> String {
        for name in [tag] + fallbacks(of: tag) {
            if let value = song.packedTags.first(named: name.mpdName) { return value }
        }
        return ""
    }
}
