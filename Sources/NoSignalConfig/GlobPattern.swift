/// The part of `fnmatch(3)` that MPD's include wildcards rely on: `*` (any run of bytes) and `?` (one byte).
/// Brackets are taken literally; MPD only switches to globbing when it sees `*` or `?`.
enum GlobPattern {
    static func matches(_ pattern: [UInt8], _ name: [UInt8]) -> Bool {
        var p = 0
        var n = 0
        // Where to resume after the last `*`: the pattern index after it, and the name index it has eaten up to.
        var star: (pattern: Int, name: Int)?
        while n < name.count {
            if p < pattern.count, pattern[p] == UInt8(ascii: "*") {
                star = (p + 1, n)
                p += 1
            } else if p < pattern.count, pattern[p] == UInt8(ascii: "?") || pattern[p] == name[n] {
                p += 1
                n += 1
            } else if let resume = star {
                star = (resume.pattern, resume.name + 1)
                p = resume.pattern
                n = resume.name + 1
            } else {
                return false
            }
        }
        while p < pattern.count, pattern[p] == UInt8(ascii: "*") { p += 1 }
        return p == pattern.count
    }
}
