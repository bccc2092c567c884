import CPrefetch
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
    /// The names of each tag's `filterChain` (`TagName.canonicalUTF8`) by raw value, read once here rather than once
    /// per song.
    private let chainNames: [[UnsafeBufferPointer<UInt8>]] =
        TagName.allCases.map { $0.filterChain.map(\.canonicalUTF8) }
    /// The expression as byte comparisons, when it is one comparison of tag values or an `AND` of them (what
    /// clients send): `matchingPositions` runs these instead of walking the expression.
    private let tests: [TagTest]?
    /// The tests' names and matches (a test holds positions, so it is copied without retaining anything).
    private let testNames: [UnsafeBufferPointer<UInt8>]
    private let testMatches: [StringMatch]
    /// The needles' bytes the tests point into.
    private let needles: NeedleBytes

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
        let needles = NeedleBytes()
        self.needles = needles
        let chainNames = self.chainNames
        var testNames: [UnsafeBufferPointer<UInt8>] = []
        var testMatches: [StringMatch] = []
        func test(_ e: FilterExpression) -> TagTest? {
            guard case .tag(let selector, let match) = e, match.kind != .regex, selector != .file else { return nil }
            let start = testNames.count
            if case .tag(let tag) = selector {
                testNames += chainNames[tag.rawValue]
            }
            testMatches.append(match)
            return TagTest(isAny: selector == .any, names: start..<testNames.count, needle: needles.keep(match.value),
                           kind: match.kind, foldCase: match.foldCase, negated: match.negated,
                           match: testMatches.count - 1)
        }
        let tests: [TagTest]?
        switch folded {
        case .and(let all):
            let each = all.compactMap(test)
            tests = each.count == all.count ? each : nil
        default:
            tests = test(folded).map { [$0] }
        }
        self.tests = tests
        self.testNames = testNames
        self.testMatches = testMatches
    }

    func matches(_ song: Song, priority: UInt8 = 0) -> Bool {
        withUnsafePointer(to: song) { matches(folded, $0, priority: priority) }
    }

    private static let songOffset = MemoryLayout<Queue.Item>.offset(of: \Queue.Item.song)!

    /// The positions of the items that match, in order. Items are read where they are (the queue's buffer), through
    /// pointers: copying an item retained and released its song's storage. Each item's tags are a heap object of its
    /// own, so a scan of a long queue waited on memory for half of its time: while it matches one item it asks for the
    /// tags of the item 8 places ahead.
    func matchingPositions(_ items: UnsafeBufferPointer<Queue.Item>) -> [Int] {
        guard let tests else {
            return matchingPositions(items) { song, priority in matches(folded, song, priority: priority) }
        }
        return tests.withUnsafeBufferPointer { tests in
            testNames.withUnsafeBufferPointer { names in
                matchingPositions(items) { song, _ in
                    let all = Self.tagBytes(song)
                    return tests.allSatisfy { passes($0, names, all) }
                }
            }
        }
    }

    private func matchingPositions(_ items: UnsafeBufferPointer<Queue.Item>,
                                   where matches: (UnsafePointer<Song>, UInt8) -> Bool) -> [Int] {
        guard let first = items.baseAddress else { return [] }
        // Offsets read once here: a static read in the loop checks its one-time initialisation on every item.
        let songOffset = Self.songOffset, tagsOffset = Self.tagsOffset, distance = 8
        var positions: [Int] = []
        for index in items.indices {
            if index + distance < items.count {
                Self.prefetchTags(UnsafeRawPointer(first + index + distance), tagsOffset: tagsOffset)
            }
            let item = first + index
            let song = UnsafeRawPointer(item).advanced(by: songOffset).assumingMemoryBound(to: Song.self)
            if matches(song, item.pointee.priority) { positions.append(index) }
        }
        return positions
    }

    private static let tagsOffset = MemoryLayout<Queue.Item>.offset(of: \Queue.Item.song.packedTags)!

    /// The song's packed tag bytes where they are, for as long as the song is (the scan's caller holds the queue).
    /// Not matched inside `withUnsafeBufferPointer`: there the compiler, unable to tell that the comparisons (which
    /// may fold a string) leave the song alone, retained and released the bytes' storage for every song, as much
    /// time as the comparisons themselves (`playlistfind` on 10,000 songs). The pointer taken out of the closure
    /// stays good because the array's storage does.
    @inline(__always)
    private static func tagBytes(_ song: UnsafePointer<Song>) -> UnsafeBufferPointer<UInt8> {
        song.pointee.packedTags.bytes.withUnsafeBufferPointer { $0 }
    }

    /// Hints the processor to load the first lines of an item's tag bytes. The tags' reference is read as the bits it
    /// is (an array is one reference to its storage), not as an array: taking the array would retain and release it,
    /// which writes to the very memory that is not loaded yet. Only a hint: a wrong address is not read.
    private static func prefetchTags(_ item: UnsafeRawPointer, tagsOffset: Int) {
        let storage = item.load(fromByteOffset: tagsOffset, as: UInt.self)
        for line in stride(from: 0, to: 192, by: 64) {
            nosignal_prefetch(UnsafeRawPointer(bitPattern: storage &+ UInt(line)))
        }
    }

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

    /// One comparison of tag values made ready for a scan over many songs: the names' and the needle's bytes, so a
    /// song is matched without reading the expression's strings (binding a `StringMatch` out of the expression
    /// retained and released its string for every song).
    private struct TagTest {
        /// `any`: every value of the song; otherwise the values of the first tag of the chain the song has.
        let isAny: Bool
        /// The names of the tag's `filterChain`: positions in `testNames`.
        let names: Range<Int>
        /// The needle as `folded` has it (folded when `foldCase`).
        let needle: UnsafeBufferPointer<UInt8>
        let kind: StringMatch.Kind
        let foldCase: Bool
        let negated: Bool
        /// For a value `matchesString` must fold (not ASCII): its position in `testMatches`.
        let match: Int
    }

    /// Bytes that live as long as the matcher.
    private final class NeedleBytes: @unchecked Sendable {
        private var kept: [UnsafeMutableBufferPointer<UInt8>] = []

        func keep(_ text: String) -> UnsafeBufferPointer<UInt8> {
            let bytes = UnsafeMutableBufferPointer<UInt8>.allocate(capacity: max(text.utf8.count, 1))
            _ = bytes.initialize(from: text.utf8)
            kept.append(bytes)
            return UnsafeBufferPointer(rebasing: bytes[0..<text.utf8.count])
        }

        deinit {
            for bytes in kept { bytes.deallocate() }
        }
    }

    /// `matchesWithoutNegation` for a `TagTest`, then its negation, on a song's packed tags.
    private func passes(_ test: TagTest, _ names: UnsafeBufferPointer<UnsafeBufferPointer<UInt8>>,
                        _ all: UnsafeBufferPointer<UInt8>) -> Bool {
        let matched = if test.isAny {
            Self.anyValue(all) { valueMatches($0, test) }
        } else {
            Self.chainMatches(all, UnsafeBufferPointer(rebasing: names[test.names]), emptyValue: test.needle.isEmpty) {
                valueMatches($0, test)
            }
        }
        return matched != test.negated
    }

    private func valueMatches(_ value: UnsafeBufferPointer<UInt8>, _ test: TagTest) -> Bool {
        if test.foldCase && value.contains(where: { $0 >= 0x80 }) {
            return matchesString(String(decoding: value, as: UTF8.self), testMatches[test.match])
        }
        return Self.compare(value, test.needle, test.kind, lowering: test.foldCase)
    }

    /// `TagSongFilter::Match` before negation: any value of the tag (or, when the song lacks it, of the first tag of
    /// its `filterChain` the song has) matches; a song with none of them matches an empty value. Values are compared
    /// on the song's packed bytes.
    private func matchesWithoutNegation(_ selector: TagSelector, _ match: StringMatch,
                                        _ song: UnsafePointer<Song>) -> Bool {
        switch selector {
        case .file:
            return matchesString(song.pointee.uri, match)
        case .any:
            return Self.anyValue(Self.tagBytes(song)) { matchesValue($0, match) }
        case .tag(let tag):
            return chainNames[tag.rawValue].withUnsafeBufferPointer { chain in
                Self.chainMatches(Self.tagBytes(song), chain, emptyValue: match.value.isEmpty) {
                    matchesValue($0, match)
                }
            }
        }
    }

    /// Whether some value of the packed tags satisfies `matches` (`any`). These loops are inlined into their callers:
    /// called through a closure per song, retaining what the closure captured cost more than the comparisons.
    @inline(__always)
    private static func anyValue(_ all: UnsafeBufferPointer<UInt8>,
                                 _ matches: (UnsafeBufferPointer<UInt8>) -> Bool) -> Bool {
        var index = 0
        while index < all.count, PackedTags.field(all, &index) != nil, let value = PackedTags.field(all, &index) {
            if matches(value) { return true }
        }
        return false
    }

    /// The first tag of `chain` (names' bytes) that the packed tags hold decides whether one of its values satisfies
    /// `matches`; tags that hold none of them match when the value sought is empty.
    @inline(__always)
    private static func chainMatches(_ all: UnsafeBufferPointer<UInt8>,
                                     _ chain: UnsafeBufferPointer<UnsafeBufferPointer<UInt8>>, emptyValue: Bool,
                                     _ matches: (UnsafeBufferPointer<UInt8>) -> Bool) -> Bool {
        for wanted in chain {
            var has = false
            var index = 0
            while index < all.count, let name = PackedTags.field(all, &index),
                  let value = PackedTags.field(all, &index) {
                guard equal(name, wanted) else { continue }
                has = true
                if matches(value) { return true }
            }
            if has { return false }
        }
        return emptyValue
    }

    private static func equal(_ a: UnsafeBufferPointer<UInt8>, _ b: UnsafeBufferPointer<UInt8>) -> Bool {
        a.count == b.count && (a.isEmpty || same(a.baseAddress!, b.baseAddress!, a.count))
    }

    /// Whether `count` bytes at `a` and `b` are equal. Names and values are short: up to 16 bytes are compared as two
    /// overlapping words in place, where a call to `memcmp` cost more than the comparison.
    @inline(__always)
    private static func same(_ a: UnsafePointer<UInt8>, _ b: UnsafePointer<UInt8>, _ count: Int) -> Bool {
        let a = UnsafeRawPointer(a), b = UnsafeRawPointer(b)
        switch count {
        case 8...16:
            return a.loadUnaligned(as: UInt64.self) == b.loadUnaligned(as: UInt64.self)
                && a.loadUnaligned(fromByteOffset: count - 8, as: UInt64.self)
                    == b.loadUnaligned(fromByteOffset: count - 8, as: UInt64.self)
        case 4..<8:
            return a.loadUnaligned(as: UInt32.self) == b.loadUnaligned(as: UInt32.self)
                && a.loadUnaligned(fromByteOffset: count - 4, as: UInt32.self)
                    == b.loadUnaligned(fromByteOffset: count - 4, as: UInt32.self)
        case 0..<4:
            for offset in 0..<count where a.load(fromByteOffset: offset, as: UInt8.self)
                != b.load(fromByteOffset: offset, as: UInt8.self) {
                return false
            }
            return true
        default:
            return memcmp(a, b, count) == 0
        }
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
        if !lowering, kind != .contains, kind != .regex {
            guard kind == .equals ? value.count == needle.count : value.count >= needle.count else { return false }
            return needle.isEmpty || same(value.baseAddress!, needle.baseAddress!, needle.count)
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

    /// The tags a sort key falls back to (`Tag::GetSortValue`, close to it).
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
