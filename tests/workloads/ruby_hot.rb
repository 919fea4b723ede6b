# Two hot methods with a known split (tests/integration/772-ruby-frames.sh):
# each chunk of work is the same loop, given to hot_a with probability 2/3
# and to hot_b otherwise, so the truth is 2/3 of the CPU time in hot_a
# (drawn at random, not in turn: a fixed a-a-b pattern could alias with
# the sampling period).
# Usage: ruby ruby_hot.rb SECONDS READYFILE

def hot_a(n)
  x = 0
  i = 0
  while i < n
    x = (x * 31 + i) % 1000003
    i += 1
  end
  x
end

def hot_b(n)
  x = 0
  i = 0
  while i < n
    x = (x * 31 + i) % 1000003
    i += 1
  end
  x
end

secs = (ARGV[0] || 10).to_f
File.write(ARGV[1], "#{Process.pid}\n") if ARGV[1]
stop = Process.clock_gettime(Process::CLOCK_MONOTONIC) + secs
rng = Random.new(12345)
sum = 0
while Process.clock_gettime(Process::CLOCK_MONOTONIC) < stop
  if rng.rand(3) < 2
    sum += hot_a(20000)
  else
    sum += hot_b(20000)
  end
end
puts sum
