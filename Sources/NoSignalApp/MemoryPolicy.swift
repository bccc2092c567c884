import CMalloc
import Dispatch

/// How the server asks glibc's allocator to behave, so that memory a crowd of clients used comes back to the system
/// when they leave (MPD returns to its resting size; a server that runs for months must too).
///
/// - Two arenas instead of eight per core: every thread that allocates may otherwise get an arena of its own, and
///   each keeps its freed memory.
/// - A fixed 64 KiB `mmap` threshold: large buffers (answers, read buffers) are mapped and unmapped. glibc would
///   otherwise raise the threshold after the first large free, up to 32 MiB, and serve later large buffers from the
///   heap, where they stay resident after being freed.
/// - `malloc_trim` every few seconds off the event loops: it hands freed heap pages back.
enum MemoryPolicy {
    static let trimInterval: DispatchTimeInterval = .seconds(5)

    private nonisolated(unsafe) static var trimmer: (any DispatchSourceTimer)?

    /// Called once, before the server starts its threads.
    static func apply() {
        guard trimmer == nil else { return }
        _ = mallopt(M_ARENA_MAX, 2)
        _ = mallopt(M_MMAP_THRESHOLD, 64 * 1024)
        let timer = DispatchSource.makeTimerSource(queue: .global(qos: .utility))
        timer.schedule(deadline: .now() + trimInterval, repeating: trimInterval, leeway: .seconds(1))
        timer.setEventHandler { _ = malloc_trim(0) }
        timer.resume()
        trimmer = timer
    }
}
