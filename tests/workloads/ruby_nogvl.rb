# Two busy threads (tests/integration/776-ruby-threads-own-stacks.sh): one
# spins in Ruby, holding the GVL (ruby_spin); the other deflates random
# bytes in zlib, which lets the GVL go while it compresses (c_deflate),
# so both run at once.  A sample of the deflating thread must show its own
# Ruby stack, not that of the thread holding the GVL.  The threads are
# named (comm) so their CPU time can be read from /proc.
# Usage: ruby ruby_nogvl.rb SECONDS READYFILE
require 'zlib'

def now
  Process.clock_gettime(Process::CLOCK_MONOTONIC)
end

def ruby_spin(stop)
  x = 0
  while now < stop
    i = 0
    while i < 20000
      x = (x * 31 + i) % 1000003
      i += 1
    end
  end
  x
end

def c_deflate(stop, data)
  n = 0
  n += Zlib::Deflate.deflate(data, 9).bytesize while now < stop
  n
end

stop = now + (ARGV[0] || 10).to_f
# 4 MiB: about 130 ms of deflate for each time the thread takes the GVL
# back (the spinning thread holds it for its 100 ms time slices)
data = Random.new(7).bytes(1 << 22)
spin = Thread.new { ruby_spin(stop) }
spin.name = 'spin'
defl = Thread.new { c_deflate(stop, data) }
defl.name = 'deflate'
File.write(ARGV[1], "#{Process.pid}\n") if ARGV[1]
spin.join
defl.join
