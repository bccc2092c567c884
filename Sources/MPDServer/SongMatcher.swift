import MPDProtocol
import PlayerCore

/// Evaluates a `FilterExpression` against songs in memory, with MPD's rules (`src/song/*Filter.cxx`): for the
/// queue (`playlistfind`, `playlistsearch`) and stored playlists (`searchplaylist`). The database translates
/// filters to SQL instead; both follow the rules documented on `FilterExpression`.
struct SongMatcher {
    let expression: FilterExpression
    /// Compiled once per pattern and case mode, not once per song.
    private let regexes: [StringMatch: Regex<AnyRegexOutput>]

    init(_ expression: FilterExpression) {
        // A client may nest `(!` thousands deep: walk the tree MPD would, not that one, for every song.
        let expression = expression.optimized()
        self.expression = expression
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

    func matches(_ item: Queue.Item) -> Bool { matches(expression, item.song, priority: item.priority) }

    func matches(_ song: Song, priority: UInt8 = 0) -> Bool { matches(expression, song, priority: priority) }

    func matches(_ expression: FilterExpression, _ song: Song, priority: UInt8) -> Bool {
        switch expression {
        case .tag(let selector, let match):
            return matchesWithoutNegation(selector, match, song) != match.negated
        case .not(let inner):
            return !matches(inner, song, priority: priority)
        case .and(let all):
            return all.allSatisfy { matches($0, song, priority: priority) }
        case .base(let directory):
            return directory.isEmpty || song.uri == directory || song.uri.hasPrefix(directory + "/")
        case .modifiedSince(let time):
            return (song.lastModified ?? Int64.min) >= time
        case .addedSince(let time):
            return (song.added ?? Int64.min) >= time
        case .audioFormat(let pattern):
            guard let format = song.audioFormat.flatMap(Self.parseFormat) else { return false }
            return pattern.matches(sampleRate: format.rate, sampleFormat: format.format, channels: format.channels)
        case .priority(let atLeast):
            return Int(priority) >= atLeast
        case .nothing:
            return false
        }
    }

    /// `TagSongFilter::Match` before negation: any value of the tag (or of its fallbacks when the song lacks it)
    /// matches; a song without the tag matches an empty value.
    private func matchesWithoutNegation(_ selector: TagSelector, _ match: StringMatch, _ song: Song) -> Bool {
        switch selector {
        case .file:
            return matchesString(song.uri, match)
        case .any:
            return song.tags.contains { matchesString($0.value, match) }
        case .tag(let tag):
            let tags = song.tags // decoded once (`PackedTags`)
            let values = tags.filter { $0.name == tag.mpdName }
            if !values.isEmpty { return values.contains { matchesString($0.value, match) } }
            for fallback in Self.fallbacks(of: tag) {
                let values = tags.filter { $0.name == fallback.mpdName }
                if values.contains(where: { matchesString($0.value, match) }) { return true }
            }
            return match.value.isEmpty
        }
    }

    /// `ApplyTagFallback` (`src/tag/Fallback.hxx`).
    static func fallbacks(of tag: TagName) -> [TagName] {
        switch tag {
        case .albumArtistSort: [.albumArtist, .artistSort, .artist]
        default: tag.fallback.map { [$0] } ?? []
        }
    }

    /// `StringFilter::MatchWithoutNegation`.
    func matchesString(_ value: String, _ match: StringMatch) -> Bool {
        switch match.kind {
        case .regex:
            guard let regex = regexes[match] else { return false }
            return (try? regex.firstMatch(in: value)) != nil
        case .equals, .contains, .startsWith:
            let v = match.foldCase ? Self.fold(value) : value
            let m = match.foldCase ? Self.fold(match.value) : match.value
            switch match.kind {
            case .equals: return v == m
            case .contains: return m.isEmpty || v.contains(m)
            default: return v.hasPrefix(m)
            }
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
