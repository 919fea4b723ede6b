# A Ruby stack of known depth for bench/ruby_sample: <main>, recurse N+1
# times, then spin forever; "ready" once at the bottom.  With "c", each
# level goes through a C function and a block (recurse, times [c
# function], block in recurse): 3 frames a level.
# Usage: ruby ruby_deep.rb N [c]

def spin
  x = 0
  loop_forever = true
  while loop_forever
    x = (x + 1) % 1000003
  end
end

def recurse(n)
  if n > 0
    return recurse(n - 1) unless $via_c
    return 1.times { recurse(n - 1) }
  end
  $stdout.puts "ready"
  $stdout.flush
  spin
end

$via_c = ARGV[1] == "c"
recurse((ARGV[0] || 17).to_i)
