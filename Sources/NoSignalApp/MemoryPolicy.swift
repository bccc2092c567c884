import CMalloc
import Dispatch
import Glibc
import Logging

/// How the server asks glibc's allocator to behave, so that memory a crowd of clients used comes back to the system
/// when they leave (MPD returns to its resting size; a server that runs for months must too).
///
/// - Four arenas instead of eight per core: every thread that allocates (event loops, database readers, decoders)
///   may otherwise get an arena of its own, and each keeps its freed memory.
/// - A fixed 128 KiB `mmap` threshold (glibc's initial one): large buffers (answers) are mapped and unmapped. glibc
///   would otherwise raise the threshold after the first large free, up to 32 MiB, and serve later large buffers from
///   the heap, where they stay resident after being freed. Not lower: SQLite allocates 64 KiB for the statement
///   journal of every statement that fires a trigger inside a transaction, and 85 KiB for the first pages of a
///   connection's cache at the start of its transactions; mapped (with 64 KiB), each cost an `mmap`, an `munmap` and
///   a page fault per page, and an `update` of 5,000 songs spent more time in the kernel than in SQLite.
/// - `malloc_trim` hands freed heap pages back, but it holds the arenas' locks while it walks them, stalling every
///   thread that allocates: it runs only when the server has been quiet (under 2 % of a core over the last second),
///   once per quiet spell, which is also when memory a crowd used is there to give back. Checked every second: with
///   five, a crowd's memory stayed 5–10 s after it left (500 clients: 91 MiB two seconds after, MPD 62).
/// - Two seconds after start the executable's code mappings are dropped from the page tables once (`MADV_DONTNEED`;
///   they are clean file pages, which stay in the page cache and come back on first use). Start-up
///   touches code all over the 22 MB of the static binary, and the kernel maps 64 KiB around each page it faults
///   in, so ~17 MB of it stayed resident. What a running server uses is linked together (`Benchmarks/
///   hot-sections.txt`), so little of it comes back: at 10k songs, 62 → 53 MB after two rounds of ordinary commands.
///   The same again each time the library's indexer has finished (after an update or a NetEase sync that changed
///   the library): the scanner's and the indexer's code are not run again until the next one.
///   The verbose log says how much was resident; the client tests read that line and check the drop in `smaps`
///   (not in the unit tests' process: there, tests running beside the drop ran its code back in at once).
enum MemoryPolicy {
    static let interval: DispatchTimeInterval = .seconds(1)
    /// Clock ticks of CPU time per interval under which the server counts as quiet (2 %, at least one tick).
    static let quietTicks = max(1, Int(sysconf(Int32(_SC_CLK_TCK))) / 50)

    private nonisolated(unsafe) static var trimmer: (any DispatchSourceTimer)?
    private nonisolated(unsafe) static var lastTicks = 0
    private nonisolated(unsafe) static var trimmedSinceWork = false
    /// Ticks until the executable's code is dropped (`dropExecutableCode`): start-up is done by then, whatever the
    /// server does next (an update at start, a NetEase sync) takes back only the code it runs.
    private nonisolated(unsafe) static var ticksUntilCodeDrop = 2
    private nonisolated(unsafe) static var logger = Logger(label: "nosignal.memory")

    /// Called once, before the server starts its threads.
    static func apply(logger: Logger) {
        guard trimmer == nil else { return }
        Self.logger = logger
        _ = mallopt(M_ARENA_MAX, 4)
        _ = mallopt(M_MMAP_THRESHOLD, 128 * 1024)
        let timer = DispatchSource.makeTimerSource(queue: DispatchQueue(label: "nosignal.memory", qos: .utility))
        timer.schedule(deadline: .now() + interval, repeating: interval, leeway: .milliseconds(200))
        timer.setEventHandler(handler: tick)
        timer.resume()
        trimmer = timer
    }

    /// Runs on the timer's serial queue.
    private static func tick() {
        if ticksUntilCodeDrop > 0 {
            ticksUntilCodeDrop -= 1
            if ticksUntilCodeDrop == 0 { dropCode(after: "start-up") }
        }
        let ticks = cpuTicks()
        defer { lastTicks = ticks }
        guard ticks - lastTicks <= quietTicks else {
            trimmedSinceWork = false
            return
        }
        // Once per quiet spell is enough: nothing new was freed while nothing ran.
        guard !trimmedSinceWork else { return }
        trimmedSinceWork = true
        _ = malloc_trim(0)
    }

    /// Drops the executable's code (`dropExecutableCode`) and says so in the verbose log: the client tests read the
    /// line, then the mappings' resident size, to see the drop happen.
    static func dropCode(after work: String) {
        let resident = dropExecutableCode()
        logger.debug("memory: after \(work) the executable's code left the page tables (\(resident) kB were resident)")
    }

    /// `MADV_DONTNEED` on the executable's read-only executable mappings that hold no page of their own (a page
    /// written, such as a debugger's breakpoint, is an anonymous copy and would be lost: such a mapping is left
    /// alone). `Private_Dirty` does not tell: it counts the file's own pages while they wait to be written back.
    /// Returns the kB the dropped mappings had resident.
    private static func dropExecutableCode() -> Int {
        var executable = [CChar](repeating: 0, count: Int(PATH_MAX) + 1)
        let length = readlink("/proc/self/exe", &executable, executable.count - 1)
        guard length > 0, let smaps = fopen("/proc/self/smaps", "r") else { return 0 }
        defer { fclose(smaps) }
        // `smaps` has ~25 lines for each of the process's ~900 mappings (thread stacks, arenas, libraries): each
        // line is looked at as the C string `fgets` made of it, and only the executable's code mappings further
        // (a `String` and its fields for every line cost ~50 ms of CPU; now the kernel's writing of `smaps`, 5–9 ms,
        // is most of a drop).
        var candidate: (start: UInt, end: UInt)?
        var candidateResident = 0
        var dropped = 0
        var line = [CChar](repeating: 0, count: 4096)
        while fgets(&line, Int32(line.count), smaps) != nil {
            let first = UInt8(bitPattern: line[0])
            if first >= UInt8(ascii: "A"), first <= UInt8(ascii: "Z") {
                // A field of the mapping above (`Rss:       1234 kB`).
                guard let mapping = candidate else { continue }
                if let kB = Self.field("Rss:", of: line) {
                    candidateResident = kB
                } else if let anonymous = Self.field("Anonymous:", of: line) {
                    candidate = nil
                    guard anonymous == 0, let start = UnsafeMutableRawPointer(bitPattern: mapping.start),
                          madvise(start, Int(mapping.end - mapping.start), MADV_DONTNEED) == 0
                    else { continue }
                    dropped += candidateResident
                }
            } else {
                // A mapping's first line: `start-end perms offset dev inode path`.
                candidate = Self.codeMapping(line, of: executable, pathLength: length)
                candidateResident = 0
            }
        }
        return dropped
    }

    /// The number after `name` when `line` is that field, else nil.
    private static func field(_ name: StaticString, of line: [CChar]) -> Int? {
        line.withUnsafeBufferPointer { line in
            name.withUTF8Buffer { name in
                let prefix = UnsafeRawPointer(name.baseAddress!).assumingMemoryBound(to: CChar.self)
                guard strncmp(line.baseAddress!, prefix, name.count) == 0 else { return nil }
                return strtol(line.baseAddress! + name.count, nil, 10)
            }
        }
    }

    /// The bounds of the mapping `line` starts when it maps `executable` (`pathLength` bytes) read-only executable.
    private static func codeMapping(_ line: [CChar], of executable: [CChar],
                                    pathLength: Int) -> (start: UInt, end: UInt)? {
        line.withUnsafeBufferPointer { line in
            let text = line.baseAddress!
            var length = strlen(text)
            if length > 0, text[length - 1] == 0x0A { length -= 1 }
            guard length > pathLength, text[length - pathLength - 1] == 0x20,
                  memcmp(text + length - pathLength, executable, pathLength) == 0,
                  strstr(text, " r-xp ") != nil
            else { return nil }
            var end: UnsafeMutablePointer<CChar>?
            let start = strtoul(text, &end, 16)
            guard let dash = end, dash.pointee == 0x2D else { return nil }
            let stop = strtoul(dash + 1, nil, 16)
            return stop > start ? (start, stop) : nil
        }
    }

    /// The process's user and system CPU time so far, in clock ticks (`/proc/self/stat` fields 14 and 15).
    private static func cpuTicks() -> Int {
        guard let file = fopen("/proc/self/stat", "r") else { return 0 }
        defer { fclose(file) }
        var buffer = [CChar](repeating: 0, count: 1024)
        guard fgets(&buffer, Int32(buffer.count), file) != nil else { return 0 }
        let line = String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
        // The command name (field 2) may hold spaces; the fields after it start past its closing parenthesis.
        guard let close = line.lastIndex(of: ")") else { return 0 }
        let fields = line[line.index(after: close)...].split(separator: " ")
        // Fields 3… follow the name: utime is field 14, stime 15, so indices 11 and 12 here.
        guard fields.count > 12, let user = Int(fields[11]), let system = Int(fields[12]) else { return 0 }
        return user + system
    }
}
