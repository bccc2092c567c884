import CICUText
import Foundation

/// ICU's root collation (`IcuCollate`: `ucol_open("")`, `ucol_strcollUTF8`), which MPD uses to order directories
/// and the songs inside one, through ICU's sort keys: two keys compare as ICU compares their strings. The libicu is
/// Debian's, the one Debian's MPD links, so the order is MPD's to the last character (CJK, Cyrillic, accents, emoji).
struct CollationKey: Comparable {
    /// ICU's sort key, without its final NUL.
    private let key: [UInt8]
    /// The text's bytes: the tie-break for strings ICU finds equal, so that an order is total.
    private let bytes: [UInt8]

    init(_ text: String) {
        var text = text
        bytes = Array(text.utf8)
        key = text.withUTF8 { Self.sortKey($0) }
    }

    private static func sortKey(_ utf8: UnsafeBufferPointer<UInt8>) -> [UInt8] {
        guard !utf8.isEmpty else { return [] }
        var capacity = utf8.count * 4 + 16
        while true {
            var key = [UInt8](repeating: 0, count: capacity)
            let needed = utf8.withMemoryRebound(to: CChar.self) { text in
                key.withUnsafeMutableBufferPointer { key in
                    nosignal_sort_key(text.baseAddress, Int32(utf8.count), key.baseAddress, Int32(capacity))
                }
            }
            // Without ICU (it cannot fail on a valid collator) the text's own bytes keep the order total.
            guard needed >= 0 else { return Array(utf8) }
            if Int(needed) <= capacity {
                key.removeSubrange(max(0, Int(needed) - 1)...)
                return key
            }
            capacity = Int(needed)
        }
    }

    /// The indices of `texts` in collation order.
    static func sortedIndices(_ texts: [String]) -> [Int] {
        let keys = texts.map(CollationKey.init)
        return texts.indices.sorted { keys[$0] < keys[$1] }
    }

    static func < (a: CollationKey, b: CollationKey) -> Bool {
        let order = compare(a.key, b.key)
        return order != 0 ? order < 0 : compare(a.bytes, b.bytes) < 0
    }

    static func == (a: CollationKey, b: CollationKey) -> Bool { a.bytes == b.bytes }

    /// ICU's three-way answer (`IcuCollate`), without the bytewise tie-break.
    static func collate(_ a: CollationKey, _ b: CollationKey) -> Int { compare(a.key, b.key) }

    /// `memcmp` order of two byte strings, the shorter first when one begins the other: how sort keys compare.
    private static func compare(_ a: [UInt8], _ b: [UInt8]) -> Int {
        a.withUnsafeBufferPointer { x in
            b.withUnsafeBufferPointer { y in
                let common = min(x.count, y.count)
                let order = common == 0 ? 0 : memcmp(x.baseAddress!, y.baseAddress!, common)
                return order != 0 ? Int(order) : x.count - y.count
            }
        }
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
        // Directories in preorder, each one's songs by `songOrder`; songs outside the tree last, by id.
        var byDirectory: [Int: [Int]] = [:]
        for (index, entry) in entries.enumerated() {
            byDirectory[entry.directory.map { ranks[$0]! } ?? Int.max, default: []].append(index)
        }
        var order: [Int] = []
        order.reserveCapacity(entries.count)
        for rank in byDirectory.keys.sorted() {
            let members = byDirectory[rank]!
            if rank == Int.max {
                order += members.sorted { entries[$0].id < entries[$1].id }
            } else {
                order += songOrder(members.map { entries[$0] }).map { members[$0] }
            }
        }
        items = order.map { items[$0] }
    }

    /// The songs of one directory in `song_cmp` order: the indices of `entries`. Albums and file names are ranked
    /// once (collation keys are compared only while ranking the distinct values), then the songs are sorted by
    /// integer tuples (`song_cmp`, `src/db/plugins/simple/SongSort.cxx`: album, disc, track, file name).
    static func songOrder(_ entries: [Entry]) -> [Int] {
        // Albums that ICU finds equal share a rank (`song_cmp` goes on to the disc); file names differ in a folder.
        let albums = Array(Set(entries.compactMap(\.album)))
        let albumKeys = albums.map(CollationKey.init)
        var albumRanks: [String: Int] = [:]
        var rank = -1
        var previous: CollationKey?
        for index in albums.indices.sorted(by: { albumKeys[$0] < albumKeys[$1] }) {
            if previous.map({ CollationKey.collate($0, albumKeys[index]) != 0 }) ?? true { rank += 1 }
            albumRanks[albums[index]] = rank
            previous = albumKeys[index]
        }
        let names = entries.map { filename($0.uri) }
        var nameRanks = [Int](repeating: 0, count: entries.count)
        for (rank, index) in CollationKey.sortedIndices(names).enumerated() { nameRanks[index] = rank }
        // A missing album sorts first; a disc or track that is not positive sorts before any number and ties with
        // another such (`compare_number_string`).
        let keys = entries.indices.map { index in
            (entries[index].album.map { albumRanks[$0]! } ?? -1, max(entries[index].disc, 0),
             max(entries[index].track, 0), nameRanks[index])
        }
        return entries.indices.sorted { keys[$0] != keys[$1] ? keys[$0] < keys[$1] : $0 < $1 }
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
}
