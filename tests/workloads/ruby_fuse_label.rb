# A Ruby process whose running method's label (the String the profiler
# reads for the frame's name) points into a page of a file on FUSE: the
# file is mapped, never touched, and the label's heap pointer rewritten to
# it through Fiddle.  Ruby itself never reads the label while the method
# runs; a profiler reading it faults the page in from the FUSE server.
#
#	ruby ruby_fuse_label.rb FILE READY_FILE SECONDS
require "fiddle"

path, ready, secs = ARGV[0], ARGV[1], ARGV[2].to_f

libc = Fiddle::Handle::DEFAULT
mmap = Fiddle::Function.new(libc["mmap"], [Fiddle::TYPE_VOIDP,
    Fiddle::TYPE_SIZE_T, Fiddle::TYPE_INT, Fiddle::TYPE_INT,
    Fiddle::TYPE_INT, Fiddle::TYPE_LONG], Fiddle::TYPE_VOIDP)
f = File.open(path, "r")
page = mmap.call(nil, 4096, 1, 2, f.fileno, 0).to_i	# PROT_READ, MAP_PRIVATE
abort "mmap failed" if page == 0 || page == (1 << 64) - 1

def a_frame_whose_label_lives_on_a_fuse_page(deadline)
  x = 0
  x += 1 while Process.clock_gettime(Process::CLOCK_MONOTONIC) < deadline
  x
end

label = RubyVM::InstructionSequence.of(
    method(:a_frame_whose_label_lives_on_a_fuse_page)).label
obj = Fiddle::Pointer.new(Fiddle.dlwrap(label))
flags = obj[0, 8].unpack1("Q")
abort "the label is embedded" if flags & (1 << 13) == 0	# RSTRING_NOEMBED
obj[24, 8] = [page].pack("Q")	# RString.as.heap.ptr (Ruby <= 3.1)
File.write(ready, "#{page.to_s(16)}\n")
a_frame_whose_label_lives_on_a_fuse_page(
    Process.clock_gettime(Process::CLOCK_MONOTONIC) + secs)
