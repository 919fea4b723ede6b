# Three threads busy in worker_spin while the main thread sleeps
# (tests/integration/772-ruby-frames.sh): only the thread holding the GVL
# runs Ruby, and that is the one sampled.
# Usage: ruby ruby_threads.rb SECONDS READYFILE

def worker_spin(n)
  x = 0
  i = 0
  while i < n
    x = (x + i) % 1000003
    i += 1
  end
  x
end

t1 = Thread.new { loop { worker_spin(10000) } }
t2 = Thread.new { loop { worker_spin(10000) } }
t3 = Thread.new { loop { worker_spin(10000) } }
File.write(ARGV[1], "#{Process.pid}\n") if ARGV[1]
sleep((ARGV[0] || 10).to_f)
[t1, t2, t3].each(&:kill)
