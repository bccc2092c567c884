import Foundation

/// An approximation of ICU's root collation (`IcuCollate`, `ucol_open("")`), which MPD uses to order directories
/// and the songs inside one: base letters first (case and accents ignored), then accents, then case (lower before
/// upper). Whitespace sorts before punctuation, punctuation before symbols, symbols before digits, digits before
/// letters, as in the CLDR root order.
struct CollationKey: Comparable {
    private var primary: [UInt32] = []
    private var secondary: [UInt32] = []
    private var tertiary: [UInt8] = []
    private var bytes: [UInt8]

    /// The CLDR root order of ASCII punctuation and symbols.
    private static let asciiOrder: [UInt8: UInt32] = {
        let order = "\t\n\u{0B}\u{0C}\r _-,;:!?.'\"()[]{}@*/\\&#%`^+<=>|~$"
        var table: [UInt8: UInt32] = [:]
        for (i, byte) in order.utf8.enumerated() { table[byte] = UInt32(i + 1) }
        return table
    }()

    /// The weights of each ASCII character, computed once by the general code below: most names and tags are
    /// ASCII, and asking Unicode properties per character was most of the cost of sorting a large folder.
    private static let asciiWeights: [(primary: [UInt32], tertiary: [UInt8])] = (0..<128).map { value in
        var key = CollationKey(bytes: [])
        key.append(Unicode.Scalar(UInt8(value)))
        return (key.primary, key.tertiary)
    }

    private init(bytes: [UInt8]) { self.bytes = bytes }

    init(_ text: String) {
        bytes = Array(text.utf8)
        if bytes.allSatisfy({ $0 < 0x80 }) {
            primary.reserveCapacity(bytes.count)
            tertiary.reserveCapacity(bytes.count)
            for byte in bytes {
                let weights = Self.asciiWeights[Int(byte)]
                primary.append(contentsOf: weights.primary)
                tertiary.append(contentsOf: weights.tertiary)
            }
            return
        }
        for scalar in text.decomposedStringWithCanonicalMapping.unicodeScalars { append(scalar) }
    }

    private mutating func append(_ scalar: Unicode.Scalar) {
        let properties = scalar.properties
        if properties.generalCategory == .nonspacingMark || properties.generalCategory == .enclosingMark {
            secondary.append(scalar.value)
            return
        }
        if scalar.isASCII {
            let byte = UInt8(scalar.value)
            switch byte {
            case 0x30...0x39:
                primary.append(0x1000 + UInt32(byte - 0x30))
                tertiary.append(0)
                return
            case 0x41...0x5A, 0x61...0x7A:
                primary.append(0x20_0000 + UInt32(byte | 0x20))
                tertiary.append(byte < 0x60 ? 1 : 0)
                return
            default:
                if let rank = Self.asciiOrder[byte] {
                    primary.append(rank)
                    tertiary.append(0)
                    return
                }
            }
        }
        if let digit = properties.numericType == .decimal ? properties.numericValue : nil {
            primary.append(0x1000 + UInt32(digit))
            tertiary.append(0)
            return
        }
        let isUpper = properties.isUppercase
        let folded = CaseFolding.fold(String(scalar)).unicodeScalars
        let category = properties.generalCategory
        let base: UInt32
        switch category {
        case .uppercaseLetter, .lowercaseLetter, .titlecaseLetter, .modifierLetter, .otherLetter:
            base = 0x20_0000
        case .spaceSeparator, .lineSeparator, .paragraphSeparator, .control:
            base = 0x100
        default:
            base = 0x800
        }
        for f in folded {
            primary.append(base + f.value)
            tertiary.append(isUpper ? 1 : 0)
        }
    }

    /// The one primary and one tertiary weight of each ASCII byte (none has a secondary weight), so that two ASCII
    /// strings compare without building their keys.
    private static let asciiPrimary: [UInt32] = asciiWeights.map { $0.primary.count == 1 ? $0.primary[0] : 0 }
    private static let asciiTertiary: [UInt8] = asciiWeights.map { $0.tertiary.count == 1 ? $0.tertiary[0] : 0 }

    /// `CollationKey(a) < CollationKey(b)` for two ASCII strings (as bytes), without allocating: the weights come
    /// byte by byte from tables, primary first, then tertiary, then the bytes themselves.
    static func asciiPrecedes(_ a: [UInt8], _ b: [UInt8]) -> Bool {
        let common = min(a.count, b.count)
        for i in 0..<common {
            let x = asciiPrimary[Int(a[i])], y = asciiPrimary[Int(b[i])]
            if x != y { return x < y }
        }
        if a.count != b.count { return a.count < b.count }
        for i in 0..<common {
            let x = asciiTertiary[Int(a[i])], y = asciiTertiary[Int(b[i])]
            if x != y { return x < y }
        }
        return a.lexicographicallyPrecedes(b)
    }

    /// The indices of `texts` in collation order; ASCII-only lists (most file names) without building keys.
    static func sortedIndices(_ texts: [String]) -> [Int] {
        let bytes = texts.map { Array($0.utf8) }
        if bytes.allSatisfy({ $0.allSatisfy { $0 < 0x80 } }) {
            return texts.indices.sorted { asciiPrecedes(bytes[$0], bytes[$1]) }
        }
        let keys = texts.map(CollationKey.init)
        return texts.indices.sorted { keys[$0] < keys[$1] }
    }

    static func < (a: CollationKey, b: CollationKey) -> Bool {
        if a.primary != b.primary { return a.primary.lexicographicallyPrecedes(b.primary) }
        if a.secondary != b.secondary { return a.secondary.lexicographicallyPrecedes(b.secondary) }
        if a.tertiary != b.tertiary { return a.tertiary.lexicographicallyPrecedes(b.tertiary) }
        return a.bytes.lexicographicallyPrecedes(b.bytes)
    }

    static func == (a: CollationKey, b: CollationKey) -> Bool { a.bytes == b.bytes }

    /// ICU's three-way answer without the final bytewise tie-break.
    static func collate(_ a: CollationKey, _ b: CollationKey) -> Int {
        if a.primary != b.primary { return a.primary.lexicographicallyPrecedes(b.primary) ? -1 : 1 }
        if a.secondary != b.secondary { return a.secondary.lexicographicallyPrecedes(b.secondary) ? -1 : 1 }
        if a.tertiary != b.tertiary { return a.tertiary.lexicographicallyPrecedes(b.tertiary) ? -1 : 1 }
        return 0
    }
}

/// MPD's database walk order (`Directory::Walk` over a tree sorted by `Directory::Sort`): in each directory its
/// songs first, ordered by `song_cmp` (album, disc, track, file name), then its subdirectories ordered by path,
/// each recursively. Songs outside the directory tree (remote collections) follow, ordered by row id: the order
/// their syncs first stored them, which a re-sync keeps.
///
/// Directories are ranked once in depth-first order (songs of a directory precede those of its subdirectories, so
/// the preorder rank is the song's primary key); collation keys are computed only when two different strings in
/// one directory must be compared.
struct WalkOrder {
    struct Entry {
        /// The song's row.
        var id: Int64
        /// The directory's path; nil for songs outside the tree.
        var directory: String?
        var album: String?
        var disc: Int
        var track: Int
        var uri: String
    }

    /// Sorts `items` (each with an entry) into walk order.
    /// `unsorted` holds the directories an update added since the last save (`directory.unsorted`): MPD keeps them
    /// after their sorted siblings, in the order found.
    static func sort<T>(_ items: inout [T], unsorted: [String: Int64] = [:], entry: (T) -> Entry) {
        let entries = items.map(entry)
        let ranks = directoryRanks(Set(entries.compactMap(\.directory)), unsorted: unsorted)
        var keys: [String: CollationKey] = [:]
        func key(_ text: String) -> CollationKey {
            if let cached = keys[text] { return cached }
            let computed = CollationKey(text)
            keys[text] = computed
            return computed
        }
        let rank = entries.map { $0.directory.map { ranks[$0]! } ?? Int.max }
        var order = Array(entries.indices)
        order.sort { i, j in
            let (a, b) = (entries[i], entries[j])
            if rank[i] != rank[j] { return rank[i] < rank[j] }
            if a.directory == nil { return a.id < b.id }
            // `song_cmp`
            if a.album != b.album {
                guard let x = a.album else { return true }
                guard let y = b.album else { return false }
                let c = CollationKey.collate(key(x), key(y))
                if c != 0 { return c < 0 }
            }
            let disc = compareNumbers(a.disc, b.disc)
            if disc != 0 { return disc < 0 }
            let track = compareNumbers(a.track, b.track)
            if track != 0 { return track < 0 }
            if a.uri == b.uri { return i < j }
            return key(filename(a.uri)) < key(filename(b.uri))
        }
        items = order.map { items[$0] }
    }

    private static func filename(_ uri: String) -> String {
        guard let slash = uri.lastIndex(of: "/") else { return uri }
        return String(uri[uri.index(after: slash)...])
    }

    /// Preorder ranks of the directories (and their ancestors), children ordered by `IcuCollate` of their paths.
    static func directoryRanks(_ directories: Set<String>, unsorted: [String: Int64] = [:]) -> [String: Int] {
        var children: [String: [String]] = [:]
        var known: Set<String> = [""]
        for directory in directories {
            var path = directory
            while !known.contains(path) {
                known.insert(path)
                let parent = path.lastIndex(of: "/").map { String(path[..<$0]) } ?? ""
                children[parent, default: []].append(path)
                path = parent
            }
        }
        var ranks: [String: Int] = [:]
        var stack = [""]
        while let path = stack.popLast() {
            ranks[path] = ranks.count
            guard let list = children[path] else { continue }
            let sorted = list.map { ($0, CollationKey($0), unsorted[$0]) }.sorted { a, b in
                switch (a.2, b.2) {
                case (nil, nil): a.1 < b.1
                case (nil, _): true
                case (_, nil): false
                case (let x?, let y?): x < y
                }
            }.map(\.0)
            stack.append(contentsOf: sorted.reversed())
        }
        return ranks
    }

    /// `strtol`, as `compare_number_string` reads disc and track numbers.
    static func number(_ text: String?) -> Int {
        guard let text else { return 0 }
        var value = 0
        var negative = false
        var index = text.utf8.startIndex
        let utf8 = text.utf8
        while index < utf8.endIndex, utf8[index] == 0x20 || (utf8[index] >= 9 && utf8[index] <= 13) { index = utf8.index(after: index) }
        if index < utf8.endIndex, utf8[index] == UInt8(ascii: "-") || utf8[index] == UInt8(ascii: "+") {
            negative = utf8[index] == UInt8(ascii: "-")
            index = utf8.index(after: index)
        }
        while index < utf8.endIndex, utf8[index] >= 0x30, utf8[index] <= 0x39 {
            value = value &* 10 &+ Int(utf8[index] - 0x30)
            if value > Int(Int32.max) { value = Int(Int32.max) }
            index = utf8.index(after: index)
        }
        return negative ? -value : value
    }

    private static func compareNumbers(_ a: Int, _ b: Int) -> Int {
        if a <= 0 { return b <= 0 ? 0 : -1 }
        if b <= 0 { return 1 }
        return a - b
    }
}
