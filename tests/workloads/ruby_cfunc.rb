# A Ruby method whose time goes to a C function: sort_hot sorts a
# shuffled Array (Array#sort, rb_ary_sort_bang in C), so nearly all of its
# samples end in "sort [c function]" (tests/integration/772-ruby-frames.sh).
# Usage: ruby ruby_cfunc.rb SECONDS READYFILE

def sort_hot(a)
  a.sort
end

secs = (ARGV[0] || 10).to_f
data = (1..50000).to_a.shuffle(random: Random.new(7))
File.write(ARGV[1], "#{Process.pid}\n") if ARGV[1]
stop = Process.clock_gettime(Process::CLOCK_MONOTONIC) + secs
n = 0
while Process.clock_gettime(Process::CLOCK_MONOTONIC) < stop
  n += sort_hot(data).first
end
puts n
