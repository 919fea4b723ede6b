# Two hot methods with a known split (tests/integration/77-ruby-frames.sh):
# each chunk of work is the same loop, given to hot_a two times in three
# and to hot_b otherwise, so the truth is 2/3 of the CPU time in hot_a.
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
sum = 0
k = 0
while Process.clock_gettime(Process::CLOCK_MONOTONIC) < stop
  if k % 3 < 2
    sum += hot_a(20000)
  else
    sum += hot_b(20000)
  end
  k += 1
end
puts sum
