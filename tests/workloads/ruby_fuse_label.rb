# A Ruby process whose running method's label (the String the profiler
# reads for the frame's name) points into a page of a file on FUSE: the
# file is mapped, never touched, and the label's heap pointer rewritten to
# it through Fiddle.  Ruby itself never reads the label while the method
# runs; a profiler reading it faults the page in from the FUSE server.
#
# With "late", the label points first at an anonymous page (touched, so
# resident), and after LATE seconds the FUSE file is mapped over that
# page (MAP_FIXED): a profiler that judged the page by the maps it read
# before still sees an anonymous page there.
#
#	ruby ruby_fuse_label.rb FILE READY_FILE SECONDS [late LATE]
require "fiddle"

path, ready, secs = ARGV[0], ARGV[1], ARGV[2].to_f
late = ARGV[3] == "late" ? ARGV[4].to_f : nil

PROT_READ, PROT_WRITE = 1, 2
MAP_PRIVATE, MAP_FIXED, MAP_ANONYMOUS = 2, 0x10, 0x20
libc = Fiddle::Handle::DEFAULT
mmap = Fiddle::Function.new(libc["mmap"], [Fiddle::TYPE_VOIDP,
    Fiddle::TYPE_SIZE_T, Fiddle::TYPE_INT, Fiddle::TYPE_INT,
    Fiddle::TYPE_INT, Fiddle::TYPE_LONG], Fiddle::TYPE_VOIDP)
f = File.open(path, "r")
if late
  page = mmap.call(nil, 4096, PROT_READ | PROT_WRITE,
      MAP_PRIVATE | MAP_ANONYMOUS, -1, 0).to_i
  abort "mmap failed" if page == 0 || page == (1 << 64) - 1
  Fiddle::Pointer.new(page)[0, 8] = "a label\0"
  remap = lambda do
    got = mmap.call(page, 4096, PROT_READ, MAP_PRIVATE | MAP_FIXED,
        f.fileno, 0).to_i
    abort "mmap MAP_FIXED failed" if got != page
  end
else
  page = mmap.call(nil, 4096, PROT_READ, MAP_PRIVATE, f.fileno, 0).to_i
  abort "mmap failed" if page == 0 || page == (1 << 64) - 1
  remap = nil
end

def a_frame_whose_label_lives_on_a_fuse_page(deadline, remap_at, remap)
  x = 0
  while (t = Process.clock_gettime(Process::CLOCK_MONOTONIC)) < deadline
    if remap && t >= remap_at
      remap.call
      remap = nil
    end
    x += 1
  end
  x
end

label = RubyVM::InstructionSequence.of(
    method(:a_frame_whose_label_lives_on_a_fuse_page)).label
obj = Fiddle::Pointer.new(Fiddle.dlwrap(label))
flags = obj[0, 8].unpack1("Q")
abort "the label is embedded" if flags & (1 << 13) == 0	# RSTRING_NOEMBED
obj[24, 8] = [page].pack("Q")	# RString.as.heap.ptr (Ruby <= 3.1)
File.write(ready, "#{page.to_s(16)}\n")
t0 = Process.clock_gettime(Process::CLOCK_MONOTONIC)
a_frame_whose_label_lives_on_a_fuse_page(t0 + secs, t0 + (late || 0), remap)
