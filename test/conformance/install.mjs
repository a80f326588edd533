console.log('skip')
